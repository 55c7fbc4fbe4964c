package probe

import (
	"bufio"
	"io"
	"os"
	"strings"
)

// hookSymbols is what /proc/kallsyms says about the functions tmpprobe hooks.
type hookSymbols struct {
	Funcs  map[string]bool     // text symbols present under their own name
	Clones map[string][]string // wanted name -> optimized copies (name.isra.0, …)
}

// parseKallsyms reads "address type name [module]" lines and keeps the
// text symbols among wanted. A function the compiler specialised shows up
// only as name.isra.N / name.constprop.N: its callers no longer go through
// name, so hooking the copy would miss calls; it counts as absent.
func parseKallsyms(r io.Reader, wanted []string) (hookSymbols, error) {
	want := map[string]bool{}
	for _, w := range wanted {
		want[w] = true
	}
	s := hookSymbols{Funcs: map[string]bool{}, Clones: map[string][]string{}}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || (f[1] != "t" && f[1] != "T") {
			continue
		}
		name := f[2]
		if want[name] {
			s.Funcs[name] = true
			continue
		}
		if base, _, ok := strings.Cut(name, "."); ok && want[base] && !strings.HasSuffix(name, ".cold") {
			s.Clones[base] = append(s.Clones[base], name)
		}
	}
	return s, sc.Err()
}

// readKallsyms parses /proc/kallsyms.
func readKallsyms(wanted []string) (hookSymbols, error) {
	f, err := os.Open("/proc/kallsyms")
	if err != nil {
		return hookSymbols{}, err
	}
	defer f.Close()
	return parseKallsyms(f, wanted)
}

// Missing says why a wanted function cannot be hooked, or "" when it can.
func (s hookSymbols) Missing(name string) string {
	if s.Funcs[name] {
		return ""
	}
	if c := s.Clones[name]; len(c) > 0 {
		return "only the compiler's copy " + strings.Join(c, ", ") + " (inlined or specialised)"
	}
	return "no " + name + " in kallsyms (inlined, renamed or not built)"
}
