// Package archtest holds the import rules ARCHITECTURE.md states, checked
// against the graph the go command reads from the tree.
package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// rule is one invariant of ARCHITECTURE.md's code map: no package matched
// by from (and not by exceptFrom) imports a package matched by forbid and
// not by allow. Patterns are module-relative ("probe", "results/..."),
// "..." is every package of the module, and a path whose first element
// has a dot is another module's ("github.com/cilium/ebpf/...").
type rule struct {
	says       string // the invariant, as ARCHITECTURE.md words it
	from       []string
	exceptFrom []string
	forbid     []string
	allow      []string
	direct     bool // the package's own imports, not everything it reaches
	tests      bool // its tests' imports too (only with direct)
}

// The test helpers: imported by tests only.
var testHelpers = []string{"probe/probetest", "results/resultstest", "internal/loopext4", "internal/sudotest", "internal/pythons"}

var rules = []rule{
	{
		says:   "results/* never imports probe, follow, arms, preflight, cmdbench, cmd or cilium/ebpf",
		from:   []string{"results/..."},
		forbid: []string{"probe/...", "follow", "arms", "preflight", "cmdbench", "cmd/...", "github.com/cilium/ebpf/..."},
	},
	{
		says:   "results, the data model, imports no project package but internal/*",
		from:   []string{"results"},
		forbid: []string{"..."},
		allow:  []string{"internal/..."},
	},
	{
		says:   "within results/, the writers' imports run one way: render → report → compare → explain → results",
		from:   []string{"results/explain"},
		forbid: []string{"results/compare", "results/report", "results/render"},
	},
	{
		says:   "within results/, the writers' imports run one way: render → report → compare → explain → results",
		from:   []string{"results/compare"},
		forbid: []string{"results/report", "results/render"},
	},
	{
		says:   "within results/, the writers' imports run one way: render → report → compare → explain → results",
		from:   []string{"results/report"},
		forbid: []string{"results/render"},
	},
	{
		says:   "runfile, runs on disk, imports of the project only the data model and internal/*: no writer, comparison or sentence",
		from:   []string{"results/runfile"},
		forbid: []string{"..."},
		allow:  []string{"results", "internal/..."},
	},
	{
		says:   "render, report, compare and explain import no runfile: storage and the writers stand side by side",
		from:   []string{"results/render", "results/report", "results/compare", "results/explain"},
		forbid: []string{"results/runfile"},
	},
	{
		says:   "probe imports no follow, preflight, arms, cmdbench or cmd, and of results only the data model",
		from:   []string{"probe/..."},
		forbid: []string{"follow", "preflight", "arms", "cmdbench", "cmd/...", "results/explain", "results/compare", "results/report", "results/render", "results/runfile"},
	},
	{
		says:   "pyinterp knows CPython from files and /proc: of the project it imports only internal/*",
		from:   []string{"pyinterp"},
		forbid: []string{"..."},
		allow:  []string{"internal/..."},
	},
	{
		says:   "symbolize names stacks from files and /proc: of the project it imports only pyinterp, the data model and internal/*",
		from:   []string{"symbolize"},
		forbid: []string{"..."},
		allow:  []string{"pyinterp", "results", "internal/..."},
	},
	{
		says:   "arms never reaches the probe or BPF: session hands it a Tracer",
		from:   []string{"arms"},
		forbid: []string{"probe/...", "follow", "preflight", "cmdbench", "cmd/...", "github.com/cilium/ebpf/..."},
	},
	{
		says:   "preflight reads the host and reaches no probe, follow, arms, cmdbench or BPF",
		from:   []string{"preflight"},
		forbid: []string{"probe/...", "follow", "arms", "cmdbench", "cmd/...", "github.com/cilium/ebpf/..."},
	},
	{
		says:   "follow imports no arms, cmdbench or cmd",
		from:   []string{"follow"},
		forbid: []string{"arms", "cmdbench", "cmd/..."},
	},
	{
		says:   "rounds runs any workload: it imports no probe, follow, arms, cmdbench, preflight or cmd, and of results only the data model",
		from:   []string{"rounds"},
		forbid: []string{"probe/...", "follow", "arms", "cmdbench", "preflight", "cmd/...", "results/explain", "results/compare", "results/render", "results/runfile", "github.com/cilium/ebpf/..."},
	},
	{
		says:   "cmdbench imports no arms: the labs' catalogue is not compare's",
		from:   []string{"cmdbench"},
		forbid: []string{"arms"},
	},
	{
		says:       "only cmd and session import cmdbench",
		from:       []string{"..."},
		exceptFrom: []string{"cmd/...", "session", "cmdbench"},
		forbid:     []string{"cmdbench"},
	},
	{
		says:       "only cmd imports session",
		from:       []string{"..."},
		exceptFrom: []string{"cmd/...", "session"},
		forbid:     []string{"session"},
	},
	{
		says:       "only cmd and session import serve and push",
		from:       []string{"..."},
		exceptFrom: []string{"cmd/...", "session", "serve", "push"},
		forbid:     []string{"serve", "push"},
	},
	{
		says:   "serve is handed the probe: it imports no probe, arms, cmdbench, runfile or session",
		from:   []string{"serve"},
		forbid: []string{"probe/...", "arms", "cmdbench", "results/runfile", "session"},
		direct: true,
	},
	{
		says:       "only serve and push import client_golang",
		from:       []string{"..."},
		exceptFrom: []string{"serve", "push"},
		forbid:     []string{"github.com/prometheus/client_golang/..."},
		direct:     true,
	},
	{
		says:   "cmd imports no sentence or comparison: results/explain and results/compare are session's",
		from:   []string{"cmd/..."},
		forbid: []string{"results/explain", "results/compare"},
		direct: true,
	},
	{
		says:   "nothing imports cmd, not even a test",
		from:   []string{"..."},
		forbid: []string{"cmd/..."},
		direct: true,
		tests:  true,
	},
	{
		says:   "internal/* are leaves: they import no project package but other internal ones",
		from:   []string{"internal/..."},
		forbid: []string{"..."},
		allow:  []string{"internal/..."},
	},
	{
		says:       "only probe (and its test helper probetest, and vmtest's guest init) imports cilium/ebpf",
		from:       []string{"..."},
		exceptFrom: []string{"probe", "probe/probetest", "vmtest/init"},
		forbid:     []string{"github.com/cilium/ebpf/..."},
		direct:     true,
	},
	{
		says:       "the test helpers (probe/probetest, results/resultstest, internal/loopext4, internal/sudotest, internal/pythons) are imported by tests only",
		from:       []string{"..."},
		exceptFrom: testHelpers,
		forbid:     testHelpers,
	},
}

// exception is a violation the tree has today and an issue is to remove.
// The test fails when it no longer occurs, so the line goes with the fix.
type exception struct {
	from, to string // module-relative paths, as violation names them
	issue    string
}

var exceptions = []exception{}

type pkg struct {
	ImportPath                string
	Standard                  bool
	Imports, Deps             []string
	TestImports, XTestImports []string
}

type graph struct {
	module string
	pkgs   map[string]*pkg // every package the module's packages reach, by import path
	own    []string        // the module's packages, sorted
}

// loadGraph runs go list -deps over the module: its packages, what each
// imports and reaches, and every package they reach, so a rule naming a
// package that is in no build fails instead of holding vacuously.
func loadGraph(t *testing.T) *graph {
	t.Helper()
	mod, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", stderr(err))
	}
	g := &graph{module: strings.TrimSpace(string(mod)), pkgs: map[string]*pkg{}}
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Standard,Imports,Deps,TestImports,XTestImports", g.module+"/...").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", stderr(err))
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		g.pkgs[p.ImportPath] = &p
		if p.ImportPath == g.module || strings.HasPrefix(p.ImportPath, g.module+"/") {
			g.own = append(g.own, p.ImportPath)
		}
	}
	slices.Sort(g.own)
	if len(g.own) < 10 {
		t.Fatalf("go list found %d packages of %s: %v", len(g.own), g.module, g.own)
	}
	return g
}

func stderr(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Errorf("%v: %s", err, ee.Stderr)
	}
	return err
}

func (g *graph) rel(path string) string {
	if path == g.module {
		return "."
	}
	if r, ok := strings.CutPrefix(path, g.module+"/"); ok {
		return r
	}
	return path
}

// match reports whether the import path matches a module-relative pattern.
func (g *graph) match(pattern, path string) bool {
	own := path == g.module || strings.HasPrefix(path, g.module+"/")
	if pattern == "..." {
		return own
	}
	full := pattern
	if first, _, _ := strings.Cut(pattern, "/"); !strings.Contains(first, ".") {
		full = g.module + "/" + pattern
	}
	if base, ok := strings.CutSuffix(full, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == full
}

func (g *graph) matchAny(patterns []string, path string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return g.match(p, path) })
}

// violation is a package that imports or reaches what a rule forbids.
type violation struct {
	rule     *rule
	from, to string // module-relative
	via      string // the direct import it reaches to through, if not to itself
}

func (v violation) String() string {
	s := v.from + " → " + v.to
	if v.via != "" {
		s = v.from + " → " + v.via + " → … → " + v.to
	}
	return s + ": breaks \"" + v.rule.says + "\""
}

func (g *graph) check(r *rule) []violation {
	var out []violation
	for _, from := range g.own {
		if !g.matchAny(r.from, from) || g.matchAny(r.exceptFrom, from) {
			continue
		}
		p := g.pkgs[from]
		reached := p.Deps
		if r.direct {
			reached = slices.Clone(p.Imports)
			if r.tests {
				reached = append(append(reached, p.TestImports...), p.XTestImports...)
			}
		}
		// One line for each forbidden pattern a package reaches: all of
		// cilium/ebpf is one violation, not fifteen.
		reported := map[string]bool{}
		for _, to := range reached {
			i := slices.IndexFunc(r.forbid, func(p string) bool { return g.match(p, to) })
			if to == from || i < 0 || g.matchAny(r.allow, to) || reported[r.forbid[i]] {
				continue
			}
			reported[r.forbid[i]] = true
			v := violation{rule: r, from: g.rel(from), to: g.rel(to)}
			if !slices.Contains(p.Imports, to) {
				for _, imp := range p.Imports {
					if q := g.pkgs[imp]; q != nil && slices.Contains(q.Deps, to) {
						v.via = g.rel(imp)
						break
					}
				}
			}
			out = append(out, v)
		}
	}
	return out
}

// The layering ARCHITECTURE.md's code map states, on the import graph of
// the packages that build the binary (tests may cross layers: arms' tests
// open the probe). A rule that names a package the graph does not have
// fails, so a move or rename has to carry the rules along.
func TestImportLayers(t *testing.T) {
	g := loadGraph(t)
	all := slices.Collect(maps.Keys(g.pkgs))
	for _, r := range rules {
		for _, list := range [][]string{r.from, r.exceptFrom, r.forbid, r.allow} {
			for _, p := range list {
				if !slices.ContainsFunc(all, func(path string) bool { return g.match(p, path) }) {
					t.Errorf("rule %q names %s, which no package of the build is", r.says, p)
				}
			}
		}
	}
	used := make([]bool, len(exceptions))
	for i := range rules {
		for _, v := range g.check(&rules[i]) {
			if j := slices.IndexFunc(exceptions, func(e exception) bool { return e.from == v.from && e.to == v.to }); j >= 0 {
				used[j] = true
				t.Logf("known, to be removed (%s): %v", exceptions[j].issue, v)
				continue
			}
			t.Error(v)
		}
	}
	for i, e := range exceptions {
		if !used[i] {
			t.Errorf("exception %s → %s (%s) no longer occurs: remove it from exceptions (and from ARCHITECTURE.md)", e.from, e.to, e.issue)
		}
	}
}

// ARCHITECTURE.md states the rules above as a list under "## Import
// invariants", in the words of each rule's says; the two must not drift.
func TestArchitectureListsTheRules(t *testing.T) {
	listed := listedUnder(t, "Import invariants")
	var says []string
	for _, r := range rules {
		if !slices.Contains(says, r.says) {
			says = append(says, r.says)
		}
	}
	for _, s := range says {
		if !slices.Contains(listed, s) {
			t.Errorf("ARCHITECTURE.md does not list the rule %q", s)
		}
	}
	for _, l := range listed {
		if !slices.Contains(says, l) {
			t.Errorf("ARCHITECTURE.md lists %q, which no rule of TestImportLayers checks", l)
		}
	}
}

// listedUnder is the list under the heading "## "+heading of
// ARCHITECTURE.md, an item a line.
func listedUnder(t *testing.T, heading string) []string {
	t.Helper()
	doc, err := os.ReadFile("../../ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("ARCHITECTURE.md has no %q section", "## "+heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var listed []string
	for _, line := range strings.Split(section, "\n") {
		if item, ok := strings.CutPrefix(line, "- "); ok {
			listed = append(listed, item)
		}
	}
	return listed
}

// Every package of the module has its place in ARCHITECTURE.md's code map,
// named in backquotes: a new package comes with its line there.
func TestArchitectureMapsEveryPackage(t *testing.T) {
	doc, err := os.ReadFile("../../ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	g := loadGraph(t)
	for _, p := range g.own {
		rel := g.rel(p)
		if !bytes.Contains(doc, []byte("`"+rel+"`")) && !bytes.Contains(doc, []byte("`"+rel+"/`")) {
			t.Errorf("ARCHITECTURE.md's code map does not name %s", rel)
		}
	}
}
