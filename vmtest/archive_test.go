package vmtest

import (
	"slices"
	"strings"
	"testing"
)

// The mirror comes from the host's sources in either format, and the
// private sources.list names another release's suites on it.
func TestParseSources(t *testing.T) {
	deb822 := `Types: deb
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: https://other.example/apt
Suites: nodistro
`
	oneLine := `# comment
deb [arch=amd64 signed-by=/etc/apt/keyrings/debian.gpg] http://mirror.example/debian/ bookworm main contrib
deb http://mirror.example/debian-security bookworm-security main
deb https://other.example/apt cloud-sdk-bookworm main
`
	for name, text := range map[string]string{"deb822": deb822, "one-line": oneLine} {
		m := ParseSources(text, "bookworm")
		if m.Main != "http://mirror.example/debian" || m.Security != "http://mirror.example/debian-security" || m.SignedBy == "" {
			t.Errorf("%s: %+v", name, m)
		}
	}
	if m := ParseSources(deb822, "bullseye"); m.Main != "" || m.Security != "" {
		t.Errorf("bullseye from bookworm's sources: %+v", m)
	}
	list := Mirror{"http://m/debian", "http://m/debian-security", "/k.gpg"}.SourcesList("bullseye")
	for _, want := range []string{
		"deb [signed-by=/k.gpg] http://m/debian bullseye main",
		"deb [signed-by=/k.gpg] http://m/debian bullseye-updates main",
		"deb [signed-by=/k.gpg] http://m/debian-security bullseye-security main",
	} {
		if !strings.Contains(list, want+"\n") {
			t.Errorf("sources.list lacks %q:\n%s", want, list)
		}
	}
}

func TestParseDependsAll(t *testing.T) {
	out := "strace\n  Depends: libc6\n  Depends: libunwind8\n |Depends: foo\n  Depends: <virtual>\n  Conflicts: bar\n"
	if got := ParseDependsAll(out); !slices.Equal(got, []string{"libc6", "libunwind8", "foo"}) {
		t.Errorf("got %q", got)
	}
}

// Only the tool and the shared objects it loads go into the guest.
func TestGuestFile(t *testing.T) {
	for name, want := range map[string]bool{
		"./usr/bin/strace":                               true,
		"./lib/x86_64-linux-gnu/libc.so.6":               true,
		"./lib64/ld-linux-x86-64.so.2":                   true,
		"./usr/lib/aarch64-linux-gnu/libunwind.so.8.0.1": true,
		"./usr/lib/x86_64-linux-gnu/gconv/UTF-16.so":     false,
		"./usr/share/doc/libc6/copyright":                false,
		"./usr/bin/strace-log-merge":                     false,
		"./etc/ld.so.conf.d/x86_64-linux-gnu.conf":       false,
	} {
		if got := GuestFile(name); got != want {
			t.Errorf("GuestFile(%s) = %v", name, got)
		}
	}
}

// Modules load after what they depend on, each once; a wanted module the
// package lacks (built in) is left out.
func TestLoadOrder(t *testing.T) {
	deps := map[string][]string{
		"ext4": {"mbcache", "jbd2", "crc16"}, "jbd2": nil, "mbcache": nil, "crc16": nil,
		"virtio_blk": nil, "crc32c_generic": nil,
	}
	got := LoadOrder(deps, []string{"virtio_pci", "virtio_blk", "crc32c_generic", "ext4"})
	want := []string{"virtio_blk.ko", "crc32c_generic.ko", "mbcache.ko", "jbd2.ko", "crc16.ko", "ext4.ko"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for file, want := range map[string]string{
		"./lib/modules/6.12/kernel/fs/ext4/ext4.ko.xz": "ext4", "./lib/modules/5.10/kernel/crypto/crc32c_generic.ko": "crc32c_generic",
		"./lib/modules/x/kernel/drivers/virtio/virtio-pci.ko": "virtio_pci", "./boot/config-5.10": "",
	} {
		if got := moduleName(file); got != want {
			t.Errorf("moduleName(%s) = %q, want %q", file, got, want)
		}
	}
}
