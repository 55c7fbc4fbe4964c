package results

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Every class, stage and off-CPU label constant of names.go is in the list
// that probe's TestGoTablesMatchCEnums checks against the BPF object: one
// left out would go unchecked.
func TestNamesAreListed(t *testing.T) {
	lists := []struct {
		prefix, list string
		names        []string
	}{
		{"Class", "ClassNames", ClassNames},
		{"Stage", "StageNames", StageNames},
		{"Off", "OffLabels", OffLabels},
	}
	f, err := parser.ParseFile(token.NewFileSet(), "names.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if d, ok := d.(*ast.GenDecl); ok && d.Tok == token.CONST {
			for _, s := range d.Specs {
				s := s.(*ast.ValueSpec)
				for i, name := range s.Names {
					for _, l := range lists {
						if !strings.HasPrefix(name.Name, l.prefix) {
							continue
						}
						lit, ok := s.Values[i].(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING {
							t.Fatalf("%s is not a string literal", name.Name)
						}
						v, _ := strconv.Unquote(lit.Value)
						if !slices.Contains(l.names, v) {
							t.Errorf("%s = %q is not in %s", name.Name, v, l.list)
						}
					}
				}
			}
		}
	}
}
