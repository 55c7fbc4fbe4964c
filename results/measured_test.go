package results_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// recordFiles hold what was measured: the run and its facts, its arms,
// batches, kernel records and user stacks, the case, the kind and the notes. Every
// other file of the package computes from them.
var recordFiles = []string{"run.go", "meta.go", "record.go", "merge.go", "neighbours.go", "names.go",
	"caseid.go", "casekey.go", "kind.go", "notes.go", "stacks.go"}

// The record is the measurement (#30): its files name nothing the others
// declare (figures, spreads, summaries, formats), but Run.Derived, the one
// place what was derived is kept beside what was measured. At 4756147
// they named six things back up: Figures, BetweenRuns and Bytes four
// times.
func TestRecordNamesNothingDerived(t *testing.T) {
	fset := token.NewFileSet()
	var files []*ast.File
	names, _ := filepath.Glob("*.go")
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for _, r := range recordFiles {
		if _, err := os.Stat(r); err != nil {
			t.Errorf("record file %s: %v (keep recordFiles true)", r, err)
		}
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("github.com/tmpprobe/tmpprobe/results", fset, files, info)
	if err != nil {
		t.Fatal(err)
	}
	var back []string
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !obj.Pos().IsValid() {
			continue
		}
		from, to := fset.Position(id.Pos()), filepath.Base(fset.Position(obj.Pos()).Filename)
		if slices.Contains(recordFiles, filepath.Base(from.Filename)) && !slices.Contains(recordFiles, to) {
			back = append(back, filepath.Base(from.Filename)+": "+id.Name+" ("+to+")")
		}
	}
	slices.Sort(back)
	if !slices.Equal(back, []string{"meta.go: Derived (derived.go)"}) {
		t.Errorf("the record names what is derived from it:\n%s", strings.Join(back, "\n"))
	}
}
