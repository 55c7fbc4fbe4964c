package results

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
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
		{"Fact", "FactNames", FactNames},
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

// Every fact name is a fact: the JSON name of a field of the host's facts
// (Meta, a work dir's DirFacts, its BlockQueues, the CgroupFacts), a
// writeback sysctl preflight records, or one a diff adds (the work dirs,
// the flags, the protocol). A fact renamed or gone fails here, not as a
// culprit that silently never ties.
func TestFactNamesAreFields(t *testing.T) {
	fields := map[string]bool{FactWorkDirs: true, FactFlags: true, FactProtocol: true}
	for _, v := range []any{Meta{}, DirFacts{}, BlockQueue{}, CgroupFacts{}} {
		for _, f := range reflect.VisibleFields(reflect.TypeOf(v)) {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			fields[name] = true
		}
	}
	for _, s := range WritebackSysctls {
		fields[s] = true
	}
	// The names a run.json has, for the sysctls: preflight records them
	// under "vm.".
	data, err := json.Marshal(Meta{Sysctls: map[string]string{"vm." + FactDirtyRatio: "20"}})
	if err != nil || !strings.Contains(string(data), `"vm.`+FactDirtyRatio+`"`) {
		t.Fatalf("sysctls in run.json: %s (%v)", data, err)
	}
	for _, name := range FactNames {
		if !fields[name] {
			t.Errorf("%q is in FactNames but no fact has that name", name)
		}
	}
}
