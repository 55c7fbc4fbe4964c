//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
)

// readmePages are the manual's pages in the order a user reads them: the
// README, then docs/ by task. TestREADMECommands runs their commands in
// this order in one copy of the clone, so a page may use the files an
// earlier one made (postmortems.md profiles labs.md's run.pb.gz);
// TestREADMEFrontPage holds docs/ to this list.
var readmePages = []string{
	"README.md",
	"docs/labs.md",
	"docs/rounds.md",
	"docs/measuring.md",
	"docs/trace.md",
	"docs/compare.md",
	"docs/postmortems.md",
	"docs/fleet.md",
	"docs/kernels.md",
	"docs/troubleshooting.md",
	"docs/development.md",
}

// readmeMaxLines keeps the README a front page: what tmpprobe is, the two
// commands, a run's first screen, and where to read on.
const readmeMaxLines = 400

// readmeCommand is a command a page of the manual shows: a line of a sh
// code block (backslash continuations joined, the comment dropped), or a
// "$ " line of an output block with the first line the page shows it
// printing.
type readmeCommand struct {
	text   string
	file   string
	line   int
	output string
}

// where is the command's file:line.
func (c readmeCommand) where() string { return fmt.Sprintf("%s:%d", c.file, c.line) }

var readmeComment = regexp.MustCompile(`\s+#\s.*$`)

func readmeCommands(file, page string) []readmeCommand {
	var out []readmeCommand
	lines := strings.Split(page, "\n")
	block := "" // the fence's language while inside one
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "```") {
			if block == "" {
				block = strings.TrimPrefix(l, "```") + " " // "" for an output block
			} else {
				block = ""
			}
			continue
		}
		switch {
		case block == "sh ":
			start := i
			for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
				i++
				l = strings.TrimSuffix(l, `\`) + " " + strings.TrimSpace(lines[i])
			}
			l = strings.Join(strings.Fields(readmeComment.ReplaceAllString(l, "")), " ")
			if l != "" {
				out = append(out, readmeCommand{text: l, file: file, line: start + 1})
			}
		case block == " " && strings.HasPrefix(l, "$ "):
			c := readmeCommand{text: strings.TrimPrefix(l, "$ "), file: file, line: i + 1}
			if i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "$ ") && !strings.HasPrefix(lines[i+1], "```") {
				c.output = lines[i+1]
			}
			out = append(out, c)
		}
	}
	return out
}

// readmeNotRun are the manual's commands this test does not run, and why,
// by the command's text, on whichever page shows it.
var readmeNotRun = map[string]string{
	"make && sudo ./tmpprobe all": ".ci/run runs it first, as a sudo user in a fresh clone (this test runs make itself)",
	"make test":                   "the suite this test is part of",
	"make generate":               "rewrites the committed BPF objects; .ci/run runs make check-generated",
	"make vmtest":                 ".ci/run runs it after the suite (QEMU, and Debian's kernels downloaded)",
	"make vmtest-all":             "make vmtest and arm64's 6.1 besides (QEMU, ~10 minutes more)",
	"make bench":                  "its own ~12 minutes of runs",
	"sudo tmpprobe all -q":        ".ci/run runs it as the sudo user after sudo make install; it is the run sudo ./tmpprobe all is",
	"sudo ./tmpprobe trace --cgroup system.slice/app.service --duration 30s": "a systemd service's cgroup, which CI has not (TestTraceCgroup makes one)",
	`docker run --rm -it --privileged --pid=host -v /sys/kernel/btf:/sys/kernel/btf:ro -v /sys/kernel/tracing:/sys/kernel/tracing -v "$PWD":/src -w /src lab-image ./tmpprobe all --dir /tmp`: "a container of the reader's lab image; these machines run no Docker engine (TestRunOnOverlay runs on an overlay made in the test)",
	"./tmpprobe diff k6.1/ k6.12/ k6.18/ --format markdown":                                                          "runs saved on three kernels; a machine has one",
	"./tmpprobe diff baseline/ current/ --threshold 10":                                                              "a CI job's own saved runs",
	"./tmpprobe diff baseline/ current/ --gate work --threshold 5":                                                   "a CI job's own saved runs",
	"./tmpprobe diff baseline/ current/ --format markdown > diff.md":                                                 "a CI job's own saved runs",
	`./tmpprobe diff baseline/run.json current/run.json --format json | jq '.arms[] | select(.status=="regressed")'`: "a CI job's own saved runs",
	"hyperfine --warmup 2 'sqlite3 off.db < off.sql' 'sqlite3 full.db < full.sql'":                                   "what compare replaces: hyperfine is not installed in CI",
	"sudo ./tmpprobe run TemporaryFile --attach kprobe":                                                              "shows the refusal of a kernel without kprobes; on one with them it runs",
	"sudo ./tmpprobe all --lab modes --rounds 10 -q --out runs/ci --push http://pushgateway.ci:9091":                 "a CI job's own Pushgateway (TestPushLabRun pushes a lab run to Debian's prometheus-pushgateway on loopback)",
}

// readmeOutputVaries: "$ " commands whose output is this build's or
// this machine's; they must succeed.
var readmeOutputVaries = map[string]bool{"./tmpprobe --version": true}

// Every command the manual shows (README.md, then each page of docs/ in
// the order of readmePages), run as written, in order, in one copy of
// this clone (as root: the tests run as root), so the manual cannot drift
// from what tmpprobe, make and the Go tools accept. A command in
// readmeNotRun is named with why; one that fails, or prints other than
// its page shows, fails the test, named by file:line.
func TestREADMECommands(t *testing.T) {
	needRoot(t)
	if _, err := exec.LookPath("sudo"); err != nil {
		t.Fatal("the manual's commands need sudo")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var commands []readmeCommand
	for _, file := range readmePages {
		page, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		commands = append(commands, readmeCommands(file, string(page))...)
	}
	seen := map[string]bool{}
	for _, c := range commands {
		seen[c.text] = true
	}
	for text := range readmeNotRun {
		if !seen[text] {
			t.Errorf("readmeNotRun names %q, which no page of the manual shows", text)
		}
	}

	clone := copyClone(t, root)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SUDO_") {
			env = append(env, kv)
		}
	}
	if goBin, err := exec.LookPath("go"); err == nil {
		env = append(env, "PATH="+os.Getenv("PATH")+":"+filepath.Dir(goBin))
	}
	sh := func(text string, timeout time.Duration) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", "-c", text)
		cmd.Dir, cmd.Env = clone, env
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	status, _ := sh("git status --porcelain", time.Minute)
	if out, err := sh("make", 10*time.Minute); err != nil {
		t.Fatalf("make: %v\n%s", err, out)
	}
	// A subtest per command, in order in one clone: each prints its line
	// as it ends (make test's gotestsum), so a suite that spends minutes
	// here is not silent for them (#37: 299 s without a line).
	for _, c := range commands {
		t.Run(c.where(), func(t *testing.T) {
			if why, ok := readmeNotRun[c.text]; ok {
				t.Skipf("not run: %s (%s)", c.text, why)
			}
			start := time.Now()
			out, err := sh(c.text, 10*time.Minute)
			t.Logf("%s (%.1fs)", c.text, time.Since(start).Seconds())
			// A report opens with a blank line (it follows a progress
			// line on a terminal); the page shows its first line of text.
			first, _, _ := strings.Cut(strings.TrimLeft(out, "\n"), "\n")
			switch {
			case c.output != "" && !readmeOutputVaries[c.text]:
				if first != c.output {
					t.Errorf("%s printed first\n\t%s\nthe page shows\n\t%s", c.text, first, c.output)
				}
				if strings.HasPrefix(c.output, "tmpprobe: ") && err == nil {
					t.Errorf("%s succeeded; the page shows it failing", c.text)
				}
			case err != nil:
				t.Errorf("%s: %v\n%s", c.text, err, tail(out, 20))
			}
		})
	}
	// What the commands wrote in the clone is ignored, so git status (what
	// Go stamps as "modified") and a build after them are as clean as the
	// tree was before.
	if status != "" {
		t.Logf("--version not checked: the tree has uncommitted changes:\n%s", status)
		return
	}
	if left, _ := sh("git status --porcelain", time.Minute); left != "" {
		t.Errorf("after the manual's commands, git status (--version would say modified):\n%s", left)
	}
	out, err := sh("make && ./tmpprobe --version", 10*time.Minute)
	switch {
	case err != nil:
		t.Errorf("make && ./tmpprobe --version: %v\n%s", err, out)
	case strings.Contains(out, "without VCS information"):
		t.Logf("the build is not stamped (GOFLAGS=-buildvcs=false here?):\n%s", out)
	case !strings.Contains(out, ", clean"):
		t.Errorf("after the manual's commands, --version:\n%s", out)
	}
}

// The README stays a front page of at most readmeMaxLines lines, links
// every page of docs/, and every page is in readmePages (so its commands
// run); every link of the manual, between its pages and to the tree,
// reaches a file that exists, and an anchor a heading of that page.
func TestREADMEFrontPage(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{}
	for _, file := range readmePages {
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatalf("readmePages names %s: %v", file, err)
		}
		pages[file] = string(b)
	}
	if n := strings.Count(pages["README.md"], "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, over %d: move the detail to a page of docs/", n, readmeMaxLines)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, l := range markdownLinks(pages["README.md"]) {
		linked[path.Clean(l.target)] = true
	}
	for _, d := range docs {
		file := "docs/" + filepath.Base(d)
		if !slices.Contains(readmePages, file) {
			t.Errorf("%s is not in readmePages: its commands would not run", file)
		}
		if !linked[file] {
			t.Errorf("README.md does not link %s", file)
		}
	}
	anchors := map[string]map[string]bool{}
	for _, file := range readmePages {
		for _, l := range markdownLinks(pages[file]) {
			where := fmt.Sprintf("%s:%d", file, l.line)
			target := file // "#anchor": this page
			if l.target != "" {
				target = path.Join(path.Dir(file), l.target)
				if strings.HasPrefix(target, "../") {
					t.Errorf("%s: %s leaves the repository", where, l.target)
					continue
				}
				if _, err := os.Stat(filepath.Join(root, target)); err != nil {
					t.Errorf("%s: %s: no such file", where, l.target)
					continue
				}
			}
			if l.anchor == "" {
				continue
			}
			if anchors[target] == nil {
				page, ok := pages[target]
				if !ok { // a file no command is run from: ARCHITECTURE.md
					b, err := os.ReadFile(filepath.Join(root, target))
					if err != nil {
						t.Errorf("%s: %v", where, err)
						continue
					}
					page = string(b)
				}
				anchors[target] = headingAnchors(page)
			}
			if !anchors[target][l.anchor] {
				t.Errorf("%s: %s has no heading #%s", where, target, l.anchor)
			}
		}
	}
}

// markdownLink is a link of a page outside its code blocks: the file it
// names relative to the page ("" for the page itself) and the anchor.
type markdownLink struct {
	target, anchor string
	line           int
}

var markdownLinkRE = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// markdownLinks are a page's links to files of the tree (not to the web),
// its fenced code blocks left out.
func markdownLinks(page string) []markdownLink {
	var out []markdownLink
	for i, l := range proseLines(page) {
		for _, m := range markdownLinkRE.FindAllStringSubmatch(l, -1) {
			if strings.Contains(m[1], "://") || strings.HasPrefix(m[1], "mailto:") {
				continue
			}
			target, anchor, _ := strings.Cut(m[1], "#")
			out = append(out, markdownLink{target: target, anchor: anchor, line: i + 1})
		}
	}
	return out
}

// proseLines are a page's lines with those of its fenced code blocks
// (and their fences) blanked, so that an index is still a line's.
func proseLines(page string) []string {
	lines := strings.Split(page, "\n")
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			lines[i] = ""
		} else if fenced {
			lines[i] = ""
		}
	}
	return lines
}

// headingAnchors are the anchors GitHub gives a page's headings: lower
// case, spaces as hyphens, every character but a letter, a digit, a
// hyphen or an underscore dropped, and a repeated one numbered.
func headingAnchors(page string) map[string]bool {
	out := map[string]bool{}
	for _, l := range proseLines(page) {
		heading := strings.TrimLeft(l, "#")
		if heading == l || !strings.HasPrefix(heading, " ") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		for n := 1; out[a]; n++ {
			a = fmt.Sprintf("%s-%d", b.String(), n)
		}
		out[a] = true
	}
	return out
}

// copyClone clones the repository and copies this work tree's files over
// it (tracked, and untracked but not ignored), so the copy is what a
// fresh clone of the tree would be, its changes uncommitted as here.
func copyClone(t *testing.T, root string) string {
	t.Helper()
	list, err := git("-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files in %s: %v", root, err)
	}
	clone := filepath.Join(t.TempDir(), "tmpprobe")
	if out, err := git("clone", "-q", root, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone %s: %v\n%s", root, err, out)
	}
	for _, name := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		src := filepath.Join(root, name)
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink (none today)
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(clone, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return clone
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
