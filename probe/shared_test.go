//go:build linux

package probe

import (
	"bytes"
	"errors"
	"maps"
	"math/bits"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/tmpprobe/tmpprobe/results"
)

// cEnum is a C enum of the compiled object, enumerator → value.
func cEnum(t *testing.T, name string) map[string]uint64 {
	t.Helper()
	spec, err := btf.LoadSpecFromReader(bytes.NewReader(_TmpprobeBytes))
	if err != nil {
		t.Fatal(err)
	}
	var e *btf.Enum
	if err := spec.TypeByName(name, &e); err != nil {
		t.Fatalf("enum %s: %v", name, err)
	}
	out := map[string]uint64{}
	for _, v := range e.Values {
		out[v.Name] = v.Value
	}
	return out
}

// label is what the Go side should call enumerator name: lower case,
// without its enum's prefix.
func label(name, prefix string) string { return strings.ToLower(strings.TrimPrefix(name, prefix)) }

// Every Go table that names, numbers or sizes something of bpf/tmpprobe.h
// agrees with the enums of the compiled object, here and in package
// results (which cannot import probe). The enums are read from the
// object's BTF, so this holds the tables to what C compiled to.
func TestGoTablesMatchCEnums(t *testing.T) {
	t.Run("stages", testCEnumStages)
	t.Run("pseudo classes", testCEnumPseudoClasses)
	t.Run("syscall numbers", testCEnumSyscallNumbers)
	t.Run("off-CPU labels", testCEnumOffCPULabels)
	// results keys on classes and stages by name (it cannot import probe):
	// a name the probe never gives matches no record, and what it explains
	// goes silently unexplained.
	t.Run("results names", testCEnumResultsNames)
	t.Run("drop reasons", testCEnumDropReasons)
	t.Run("histogram", testCEnumHistogram)
}

func testCEnumStages(t *testing.T) {
	for name, v := range cEnum(t, "stage") {
		want := label(name, "STAGE_")
		switch name {
		case "STAGE_SYSCALL":
			want = ""
		case "STAGE_ERRNO":
			want = "EIO"
			v |= 5
		}
		if got := stageName(tmpprobeStage(v)); got != want {
			t.Errorf("%s = %d: stageName = %q, want %q", name, v, got, want)
		}
	}
	// stageFuncs: the Go list of kernel functions the function backends
	// time. Each is STAGE_<FUNC>, and every STAGE_ with a
	// FUNC_STAGE_HOOKS program is one of them.
	stages := cEnum(t, "stage")
	spec := objectSpec(t)
	listed := map[string]bool{}
	for _, f := range stageFuncs {
		listed[f.Func] = true
		name := "STAGE_" + strings.ToUpper(f.Func)
		if v, ok := stages[name]; !ok || v != uint64(f.Stage) {
			t.Errorf("stageFuncs: %s is stage %d, C has %s = %d (defined: %v)", f.Func, f.Stage, name, v, ok)
		}
	}
	for name := range stages {
		fn := label(name, "STAGE_")
		if spec.Programs["kprobe_"+fn] != nil && !listed[fn] {
			t.Errorf("%s has FUNC_STAGE_HOOKS programs but is not in stageFuncs", name)
		}
	}
}

func testCEnumPseudoClasses(t *testing.T) {
	maxNr := slices.Max(slices.Collect(maps.Keys(syscallNames)))
	classes := cEnum(t, "pseudo_class")
	seen := map[string]string{}
	for name, v := range classes {
		got, ok := pseudoClassNames[tmpprobePseudoClass(v)]
		switch {
		case !ok:
			t.Errorf("%s = %d has no name in pseudoClassNames", name, v)
			continue
		case seen[got] != "":
			t.Errorf("%s and %s are both called %q", name, seen[got], got)
		case v <= uint64(maxNr):
			t.Errorf("%s = %d is a syscall number (the highest is %d)", name, v, maxNr)
		}
		if _, ok := syscallNr(got); ok {
			t.Errorf("%s is called %q, a syscall's name", name, got)
		}
		seen[got] = name
	}
	if len(pseudoClassNames) != len(classes) {
		t.Errorf("pseudoClassNames has %d names, enum pseudo_class %d", len(pseudoClassNames), len(classes))
	}
	if got := className(uint16(cEnum(t, "pseudo_class")["CLASS_REGION"])); got != results.ClassRegion {
		t.Errorf("CLASS_REGION is %q, results.ClassRegion %q", got, results.ClassRegion)
	}
}

func testCEnumSyscallNumbers(t *testing.T) {
	for name, v := range cEnum(t, "syscall_nr") {
		if want := strings.TrimPrefix(name, "NR_"); syscallNames[uint16(v)] != want {
			t.Errorf("%s = %d in C, but %d is %q in asm/unistd_64.h", name, v, v, syscallNames[uint16(v)])
		}
	}
}

func testCEnumOffCPULabels(t *testing.T) {
	states, wakers := cEnum(t, "off_state"), cEnum(t, "off_waker")
	n := states["NR_OFF_STATES"] * wakers["NR_OFF_WAKERS"]
	if size := cEnum(t, "off_label")["OFF_LABELS"]; n > size {
		t.Errorf("%d labels, off_ns holds %d", n, size)
	}
	got := map[string]bool{}
	for i := range int(n) {
		got[offLabel(i)] = true
	}
	// A thread that was preempted needed no waker, and one nothing
	// woke has none.
	for sn, s := range states {
		for wn, w := range wakers {
			if sn == "NR_OFF_STATES" || wn == "NR_OFF_WAKERS" {
				continue
			}
			want := label(sn, "OFF_") + "/" + label(wn, "WAKER_")
			if sn == "OFF_PREEMPTED" || wn == "WAKER_NONE" {
				want = label(sn, "OFF_")
			}
			if got := offLabel(int(s*wakers["NR_OFF_WAKERS"] + w)); got != want {
				t.Errorf("%s, %s: label %q, want %q", sn, wn, got, want)
			}
		}
	}
	for _, l := range results.OffLabels {
		if !got[l] {
			t.Errorf("results.OffLabels has %q, which is no label of the probe's (%s)", l, strings.Join(slices.Sorted(maps.Keys(got)), " "))
		}
	}
	for l := range got {
		if !slices.Contains(results.OffLabels, l) {
			t.Errorf("the probe's label %q is not in results.OffLabels", l)
		}
	}
}

func testCEnumResultsNames(t *testing.T) {
	stages := map[string]bool{}
	for name, v := range cEnum(t, "stage") {
		// Neither the syscall itself nor its errnos are a named stage.
		if name != "STAGE_SYSCALL" && name != "STAGE_ERRNO" {
			stages[stageName(tmpprobeStage(v))] = true
		}
	}
	for _, s := range results.StageNames {
		if !stages[s] {
			t.Errorf("results.StageNames has %q, which is no stage of enum stage (the probe's stages: %s)", s, strings.Join(slices.Sorted(maps.Keys(stages)), " "))
		}
	}
	if !slices.ContainsFunc(slices.Collect(maps.Keys(stages)), func(s string) bool { return strings.HasPrefix(s, results.DevStagePrefix) }) {
		t.Errorf("no stage of enum stage starts with results.DevStagePrefix %q", results.DevStagePrefix)
	}
	classes := map[string]bool{}
	for _, v := range cEnum(t, "pseudo_class") {
		classes[className(uint16(v))] = true
	}
	for _, n := range syscallNames {
		classes[n] = true
	}
	for _, c := range results.ClassNames {
		if !classes[c] {
			t.Errorf("results.ClassNames has %q, which is neither a syscall nor a class of enum pseudo_class", c)
		}
	}
}

func testCEnumDropReasons(t *testing.T) {
	drops := cEnum(t, "drop_reason")
	if m := objectSpec(t).Maps[tmpprobeMapDrops]; uint64(m.MaxEntries) != drops["NR_DROP_REASONS"] {
		t.Errorf("drops map holds %d, NR_DROP_REASONS = %d", m.MaxEntries, drops["NR_DROP_REASONS"])
	}
	for name, v := range drops {
		if got, ok := enumLabel(enumDrop, v); name != "NR_DROP_REASONS" && (!ok || got != label(name, "DROP_")) {
			t.Errorf("%s = %d: label %q", name, v, got)
		}
	}
}

func testCEnumHistogram(t *testing.T) {
	geo := cEnum(t, "hist_geometry")
	slots, sub := int(geo["HIST_SLOTS"]), int(geo["HIST_SUB_BITS"])
	if results.HistSlots != slots {
		t.Fatalf("results.HistSlots = %d, C HIST_SLOTS = %d", results.HistSlots, slots)
	}
	// results' slots, as C lays them out: exact below 1 << sub, then
	// 1 << sub per power of two, each starting at its low bound.
	for s := range slots {
		lo := results.HistLow(s)
		if results.HistSlot(lo) != s {
			t.Errorf("slot %d: HistLow %d lands in %d", s, lo, results.HistSlot(lo))
		}
		want := uint64(s)
		if s >= 1<<sub {
			l := s>>sub + sub - 1
			want = uint64(1<<sub|s&(1<<sub-1)) << (l - sub)
		}
		if lo != want {
			t.Errorf("slot %d starts at %d in results, at %d with C's %d sub-bucket bits", s, lo, want, sub)
		}
	}
}

func objectSpec(t *testing.T) *ebpf.CollectionSpec {
	t.Helper()
	spec, err := loadTmpprobe()
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// results.HistSlot is the BPF side's hist_slot, run in the kernel on
// values around every slot boundary.
func TestHistSlotMatchesBPF(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to load BPF")
	}
	spec := objectSpec(t)
	prog, err := ebpf.NewProgram(spec.Programs[tmpprobeProgTestHistSlot])
	if errors.Is(err, ebpf.ErrNotSupported) {
		t.Skipf("BPF not supported: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Close()
	values := []uint64{1 << 63} // and 1<<64 - 1: HistLow(0) - 1
	for s := range results.HistSlots + 1 {
		lo := results.HistLow(s)
		values = append(values, lo-1, lo, lo+1)
	}
	for v := range uint64(300) {
		values = append(values, v)
	}
	for _, v := range values {
		ret, err := prog.Run(&ebpf.RunOptions{Context: []uint64{v}})
		if err != nil {
			t.Fatalf("running hist_slot(%d): %v", v, err)
		}
		if want := results.HistSlot(v); int(ret) != want {
			t.Errorf("hist_slot(%d) = %d in BPF, results.HistSlot = %d (log2 %d)", v, ret, want, bits.Len64(v)-1)
		}
	}
}
