package vmtest

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// moduleName is the name the kernel knows a module file by.
func moduleName(file string) string {
	base := path.Base(file)
	for _, ext := range []string{".xz", ".zst", ".gz"} {
		base = strings.TrimSuffix(base, ext)
	}
	if !strings.HasSuffix(base, ".ko") {
		return ""
	}
	return strings.ReplaceAll(strings.TrimSuffix(base, ".ko"), "-", "_")
}

// ModuleDepends reads the modules a module file needs loaded first (its
// .modinfo "depends=" entry).
func ModuleDepends(ko []byte) ([]string, error) {
	f, err := elf.NewFile(bytes.NewReader(ko))
	if err != nil {
		return nil, err
	}
	sec := f.Section(".modinfo")
	if sec == nil {
		return nil, fmt.Errorf("no .modinfo section")
	}
	data, err := sec.Data()
	if err != nil {
		return nil, err
	}
	for _, kv := range bytes.Split(data, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("depends=")); ok {
			var deps []string
			for _, d := range strings.Split(string(v), ",") {
				if d != "" {
					deps = append(deps, strings.ReplaceAll(d, "-", "_"))
				}
			}
			return deps, nil
		}
	}
	return nil, nil
}

// LoadOrder puts every module after those it depends on.
func LoadOrder(deps map[string][]string, names []string) []string {
	var order []string
	seen := map[string]bool{}
	var visit func(string)
	visit = func(n string) {
		if seen[n] {
			return
		}
		seen[n] = true
		for _, d := range deps[n] {
			visit(d)
		}
		if _, ok := deps[n]; ok {
			order = append(order, n+".ko")
		}
	}
	for _, n := range names {
		visit(n)
	}
	return order
}

// extractModules copies the wanted modules of a kernel package, and those
// they depend on, uncompressed, to dir/<name>.ko, and returns their file
// names in load order. A wanted module the package lacks is built in; a
// dependency it lacks is an error.
func extractModules(deb, dir string, wanted []string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	deps := map[string][]string{} // extracted modules
	need := map[string]bool{}
	for _, w := range wanted {
		need[w] = true
	}
	for pass := 0; len(need) > 0; pass++ {
		if pass == 5 {
			return nil, fmt.Errorf("%s: module dependencies deeper than 5", deb)
		}
		found, err := extractModulePass(deb, dir, need, deps)
		if err != nil {
			return nil, err
		}
		next := map[string]bool{}
		for n := range need {
			if !found[n] && !contains(wanted, n) {
				return nil, fmt.Errorf("%s: no module %s, which another needs", deb, n)
			}
		}
		for n := range found {
			for _, d := range deps[n] {
				if _, have := deps[d]; !have {
					next[d] = true
				}
			}
		}
		need = next
	}
	return LoadOrder(deps, wanted), nil
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// extractModulePass reads the package once, extracting the modules of
// need and noting what each depends on.
func extractModulePass(deb, dir string, need map[string]bool, deps map[string][]string) (map[string]bool, error) {
	found := map[string]bool{}
	err := debEach(deb, func(h *tar.Header, r io.Reader) error {
		name := moduleName(h.Name)
		if h.Typeflag != tar.TypeReg || name == "" || !need[name] || !strings.Contains(h.Name, "/lib/modules/") {
			return nil
		}
		ko, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		if strings.HasSuffix(h.Name, ".xz") {
			xz := exec.Command("xz", "-dc")
			xz.Stdin = bytes.NewReader(ko)
			if ko, err = xz.Output(); err != nil {
				return fmt.Errorf("xz -dc %s: %v (install xz-utils)", h.Name, err)
			}
		}
		d, err := ModuleDepends(ko)
		if err != nil {
			return fmt.Errorf("%s: %v", h.Name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".ko"), ko, 0o644); err != nil {
			return err
		}
		deps[name] = d
		found[name] = true
		return nil
	})
	return found, err
}
