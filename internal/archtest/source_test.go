package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// A sourceRule is an invariant of ARCHITECTURE.md's "Source rules", read
// from the code itself rather than from the import graph; each is a test
// below, and TestArchitectureListsTheSourceRules holds the list to them.
var sourceRules = []string{
	"render lays out what report says: it reads no sentence back (no strings.HasPrefix, HasSuffix, TrimPrefix, TrimSuffix, Contains, Index or Cut)",
	"no stage or fact name is spelled as a string outside results/names.go and probe's generated tables",
	"no Go file but the generated ones is over 800 lines",
}

// A knownUse is a use a source rule allows, with why: a rule fails on a
// use it does not know, and on a known use that no longer occurs.
type knownUse struct {
	file, what, why string
}

// sourceFiles are the module's Go files but tests, module-relative, each
// parsed; under limits them to the directories named (all when none).
func sourceFiles(t *testing.T, under ...string) map[string]*ast.File {
	t.Helper()
	out := map[string]*ast.File{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../..", path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		if len(under) > 0 && !slices.Contains(under, filepath.Dir(rel)) {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		out[rel] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no Go files under %v", under)
	}
	return out
}

// checkUses fails on every use found that known does not list, and on
// every known use not found.
func checkUses(t *testing.T, rule string, found []knownUse, known []knownUse) {
	t.Helper()
	seen := make([]bool, len(known))
	for _, u := range found {
		i := slices.IndexFunc(known, func(k knownUse) bool { return k.file == u.file && k.what == u.what })
		if i < 0 {
			t.Errorf("%s: %s: breaks %q", u.file, u.what, rule)
			continue
		}
		seen[i] = true
	}
	for i, k := range known {
		if !seen[i] {
			t.Errorf("known use %s: %s (%s) no longer occurs: remove it", k.file, k.what, k.why)
		}
	}
}

// render only lays out report's documents: a writer that finds a
// sentence again by its words (HasPrefix(n, "OLD: ")) decides on its own
// what a report says, and says something else once the words change.
func TestRenderReadsNoSentence(t *testing.T) {
	matchers := []string{"HasPrefix", "HasSuffix", "TrimPrefix", "TrimSuffix", "Contains", "Index", "Cut", "CutPrefix", "CutSuffix"}
	var found []knownUse
	for file, f := range sourceFiles(t, "results/render") {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, isIdent := sel.X.(*ast.Ident); isIdent && pkg.Name == "strings" && slices.Contains(matchers, sel.Sel.Name) {
				found = append(found, knownUse{file: file, what: "strings." + sel.Sel.Name})
			}
			return true
		})
	}
	checkUses(t, sourceRules[0], found, []knownUse{
		{"results/render/text.go", "strings.HasPrefix", "a code span's fence, around a command's name, not a sentence"},
		{"results/render/text.go", "strings.HasSuffix", "a code span's fence, around a command's name, not a sentence"},
		{"results/render/table.go", "strings.TrimSuffix", "the run report's breakdown line, its period dropped on the terminal"},
	})
}

// The probe's stages and the host's facts are named once, in
// results/names.go, which the probe's tests hold to the BPF object's
// enums and results' tests to the facts' fields: a name spelled again
// elsewhere is one a rename leaves behind, matching nothing without a
// word (a culprit tied to "bio_flush" when the stage is gone). Stage
// names are checked everywhere; fact names, which are common words
// (python, dir, disk), in the packages that key on facts: the judge and
// the culprits' evidence.
func TestNamesSpelledOnce(t *testing.T) {
	stages := map[string]bool{}
	for _, s := range results.StageNames {
		stages[s] = true
	}
	facts := map[string]bool{}
	for _, f := range results.FactNames {
		facts[f] = true
	}
	exempt := func(file string) bool {
		return file == "results/names.go" || strings.HasPrefix(file, "probe/tmpprobe_") || strings.HasPrefix(file, "probe/sysnames_")
	}
	var found []knownUse
	keyOnFacts := sourceFiles(t, "results/compare", "results/explain")
	for file, f := range sourceFiles(t) {
		if exempt(file) {
			continue
		}
		for _, s := range stringLiterals(f) {
			_, factsToo := keyOnFacts[file]
			if stages[s] || (factsToo && facts[s]) {
				found = append(found, knownUse{file: file, what: strconv.Quote(s)})
			}
		}
	}
	checkUses(t, sourceRules[1], found, []knownUse{
		{"probe/probe.go", `"ext4_evict_inode"`, "the tracepoint of that name, in the attach table"},
		{"probe/probe.go", `"ext4_free_inode"`, "the tracepoint of that name, in the attach table"},
		{"results/explain/evidence.go", `"fast_commit"`, "ext4's mount option of that name"},
		{"results/explain/explain.go", `"python"`, "the runtime"},
		{"results/explain/reasons.go", `"python"`, "the runtime"},
		{"results/compare/facts.go", `"device"`, "the kind of a work dir's move"},
		{"results/compare/matrix.go", `"dir"`, "a group title's word for a dir no run names"},
	})
}

// stringLiterals are a file's string literals, each once, but struct
// tags (a field's JSON name is where a fact's name comes from).
func stringLiterals(f *ast.File) []string {
	tags := map[*ast.BasicLit]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if field, ok := n.(*ast.Field); ok && field.Tag != nil {
			tags[field.Tag] = true
		}
		return true
	})
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && !tags[lit] {
			if s, err := strconv.Unquote(lit.Value); err == nil && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		return true
	})
	return out
}

// ARCHITECTURE.md states the source rules as a list under "## Source
// rules", in the words of sourceRules.
func TestArchitectureListsTheSourceRules(t *testing.T) {
	if listed := listedUnder(t, "Source rules"); !slices.Equal(listed, sourceRules) {
		t.Errorf("ARCHITECTURE.md lists the source rules\n%q\nthe tests check\n%q", listed, sourceRules)
	}
}

// maxFileLines is where a file has become several jobs (#38: arms/run.go
// held seven at 816 lines, explain.go the gap, its reasons and an arm's
// sentence at 959).
const maxFileLines = 800

func TestNoFileTooLong(t *testing.T) {
	var found []knownUse
	for rel := range sourceFiles(t) {
		if strings.HasSuffix(rel, "_bpfel.go") {
			continue // bpf2go's output
		}
		b, err := os.ReadFile(filepath.Join("../..", rel))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n > maxFileLines {
			found = append(found, knownUse{file: rel, what: strconv.Itoa(n) + " lines"})
		}
	}
	checkUses(t, sourceRules[2], found, nil)
}
