package vmtest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Archive is one Debian release for one architecture, fetched with apt
// through a private configuration under the cache (its own sources, lists
// and state), so neither the host's sources nor its architectures change:
// the host's apt serves bookworm for amd64, and the test needs bullseye's
// kernels and arm64's packages too.
type Archive struct {
	Release string // bullseye, bookworm
	Arch    string // amd64, arm64 (Debian's names, which are GOARCH's)
}

func (a Archive) dir(cache string) string {
	return filepath.Join(cache, "apt", a.Release+"-"+a.Arch)
}

// Mirror is where the host's apt fetches Debian from: the archive's and
// the security archive's URIs and the key that signs them. The private
// archives use the same, with another release's suites.
type Mirror struct {
	Main, Security, SignedBy string
}

// ParseSources finds the mirror in the host's apt sources, in the
// one-line (sources.list) or deb822 (*.sources) format: the URI serving
// release's own suite, and the one serving release-security.
func ParseSources(text, release string) Mirror {
	var m Mirror
	note := func(uri, signedBy string, suites []string) {
		for _, s := range suites {
			switch s {
			case release:
				m.Main = strings.TrimRight(uri, "/")
			case release + "-security":
				m.Security = strings.TrimRight(uri, "/")
			default:
				continue
			}
			if m.SignedBy == "" {
				m.SignedBy = signedBy
			}
		}
	}
	var uris, suites []string
	signedBy := ""
	flush := func() {
		for _, u := range uris {
			note(u, signedBy, suites)
		}
		uris, suites, signedBy = nil, nil, ""
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			continue
		}
		if line == "" {
			flush()
			continue
		}
		if key, val, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "deb ") {
			switch strings.ToLower(key) {
			case "uris":
				uris = strings.Fields(val)
			case "suites":
				suites = strings.Fields(val)
			case "signed-by":
				signedBy = strings.TrimSpace(val)
			}
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "deb" {
			continue
		}
		f, opts := f[1:], ""
		if strings.HasPrefix(f[0], "[") {
			for len(f) > 0 {
				opts += " " + f[0]
				done := strings.HasSuffix(f[0], "]")
				f = f[1:]
				if done {
					break
				}
			}
		}
		key := ""
		if _, v, ok := strings.Cut(opts, "signed-by="); ok {
			key = strings.Fields(strings.TrimSuffix(v, "]"))[0]
		}
		if len(f) >= 2 {
			note(f[0], key, f[1:2])
		}
	}
	flush()
	return m
}

// hostMirror reads the host's apt sources for the mirror of its release.
func hostMirror() (Mirror, error) {
	release := ""
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VERSION_CODENAME="); ok {
				release = strings.Trim(v, `"`)
			}
		}
	}
	if release == "" {
		return Mirror{}, fmt.Errorf("no VERSION_CODENAME in /etc/os-release: not Debian?")
	}
	var text strings.Builder
	files, _ := filepath.Glob("/etc/apt/sources.list.d/*")
	for _, f := range append([]string{"/etc/apt/sources.list"}, files...) {
		if strings.HasSuffix(f, ".list") || strings.HasSuffix(f, ".sources") {
			b, _ := os.ReadFile(f)
			text.Write(b)
			text.WriteString("\n\n")
		}
	}
	m := ParseSources(text.String(), release)
	if m.Main == "" || m.Security == "" {
		return m, fmt.Errorf("the host's apt sources name no %s and %s-security suites to take the mirror from", release, release)
	}
	if m.SignedBy == "" {
		m.SignedBy = "/usr/share/keyrings/debian-archive-keyring.gpg"
	}
	return m, nil
}

// SourcesList is the private sources.list of a release on m.
func (m Mirror) SourcesList(release string) string {
	opt := "[signed-by=" + m.SignedBy + "]"
	return fmt.Sprintf("deb %s %s %s main\ndeb %s %s %s-updates main\ndeb %s %s %s-security main\n",
		opt, m.Main, release, opt, m.Main, release, opt, m.Security, release)
}

// aptOptions point apt at the private configuration.
func (a Archive) aptOptions(cache string) []string {
	d := a.dir(cache)
	opts := []string{
		"Dir::Etc::SourceList=" + filepath.Join(d, "sources.list"),
		"Dir::Etc::SourceParts=" + filepath.Join(d, "sources.list.d"),
		"Dir::State=" + filepath.Join(d, "state"),
		"Dir::State::status=" + filepath.Join(d, "state", "status"),
		"Dir::Cache=" + filepath.Join(d, "cache"),
		"APT::Architecture=" + a.Arch,
		"APT::Architectures::=" + a.Arch,
	}
	if os.Geteuid() == 0 {
		// apt drops to _apt for downloads, which cannot write here.
		opts = append(opts, "APT::Sandbox::User=root")
	}
	var args []string
	for _, o := range opts {
		args = append(args, "-o", o)
	}
	return args
}

var updated sync.Map // Archive dir -> error of its one update per process

// update writes the private configuration and runs apt-get update on it,
// once per process (the metapackages move with every Debian kernel update).
func (a Archive) update(cache string) error {
	v, _ := updated.LoadOrStore(a.dir(cache), new(onceErr))
	o := v.(*onceErr)
	o.once.Do(func() {
		m, err := hostMirror()
		if err != nil {
			o.err = err
			return
		}
		d := a.dir(cache)
		for _, sub := range []string{"sources.list.d", "state/lists/partial", "cache/archives/partial"} {
			if err := os.MkdirAll(filepath.Join(d, sub), 0o755); err != nil {
				o.err = err
				return
			}
		}
		if err := os.WriteFile(filepath.Join(d, "sources.list"), []byte(m.SourcesList(a.Release)), 0o644); err != nil {
			o.err = err
			return
		}
		if err := os.WriteFile(filepath.Join(d, "state", "status"), nil, 0o644); err != nil {
			o.err = err
			return
		}
		out, err := exec.Command("apt-get", append(a.aptOptions(cache), "-q", "update")...).CombinedOutput()
		if err != nil {
			o.err = fmt.Errorf("apt-get update (%s %s): %v: %s", a.Release, a.Arch, err, out)
		}
	})
	return o.err
}

type onceErr struct {
	once sync.Once
	err  error
}

// Resolve finds the versioned package a metapackage depends on.
func (a Archive) Resolve(cache, meta string) (string, error) {
	if err := a.update(cache); err != nil {
		return "", err
	}
	out, err := exec.Command("apt-cache", append(a.aptOptions(cache), "depends", meta)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("apt-cache depends %s (%s %s): %v: %s", meta, a.Release, a.Arch, err, out)
	}
	return ParseDepends(string(out), meta)
}

// Download fetches the .deb files of pkgs into dir.
func (a Archive) Download(cache, dir string, pkgs ...string) error {
	if err := a.update(cache); err != nil {
		return err
	}
	get := exec.Command("apt-get", append(append(a.aptOptions(cache), "download", "-q"), pkgs...)...)
	get.Dir = dir
	if out, err := get.CombinedOutput(); err != nil {
		return fmt.Errorf("apt-get download %s (%s %s): %v: %s", strings.Join(pkgs, " "), a.Release, a.Arch, err, out)
	}
	return nil
}
