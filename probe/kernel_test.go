//go:build linux

package probe

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
)

// tracepointBTF is a kernel BTF with one btf_trace_<tp> typedef whose
// TP_PROTO arguments are args (the private data pointer goes first, as the
// kernel declares it).
func tracepointBTF(t *testing.T, tp string, args ...btf.Type) *btf.Spec {
	t.Helper()
	params := []btf.FuncParam{{Name: "__data", Type: &btf.Pointer{Target: &btf.Void{}}}}
	for _, a := range args {
		params = append(params, btf.FuncParam{Type: a})
	}
	td := &btf.Typedef{Name: "btf_trace_" + tp, Type: &btf.Pointer{Target: &btf.FuncProto{Return: &btf.Void{}, Params: params}}}
	b, err := btf.NewBuilder([]btf.Type{td}, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := b.Spec()
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// Each prototype tmpprobe reads picks its form, and one it cannot read
// says, in a line, what it lacks: the prototypes are those of v5.17 and
// v5.18 (sched_switch), v5.10 and v5.11 (block).
func TestTracepointForm(t *testing.T) {
	ptr := func(kind, name string) btf.Type {
		if kind == "struct" {
			return &btf.Pointer{Target: &btf.Struct{Name: name}}
		}
		return &btf.Pointer{Target: &btf.Fwd{Name: name}}
	}
	boolT := &btf.Typedef{Name: "bool", Type: &btf.Int{Name: "_Bool", Size: 1, Encoding: btf.Bool}}
	task := ptr("struct", "task_struct")
	uint := &btf.Int{Name: "unsigned int", Size: 4}
	for _, tc := range []struct {
		name, tp string
		args     []btf.Type
		hook     string
		prog     string // the form's program suffix
		want     string // "" passes; else a substring of the error
	}{
		{"sched_switch 5.18", "sched_switch", []btf.Type{boolT, task, task, uint}, "sched_switch", "", ""},
		{"sched_switch 5.17", "sched_switch", []btf.Type{boolT, task, task}, "sched_switch", "_task", ""},
		{"sched_switch without prev", "sched_switch", []btf.Type{boolT}, "sched_switch", "",
			"sched_switch has no prev_state argument (ctx[3], v5.18, commit fa2c3254d7cf)"},
		{"block_rq_issue 5.11", "block_rq_issue", []btf.Type{ptr("struct", "request")}, "block_rq_issue", "", ""},
		{"block_rq_issue 5.10", "block_rq_issue", []btf.Type{ptr("struct", "request_queue"), ptr("struct", "request")}, "block_rq_issue", "_q", ""},
		{"block_rq_issue unknown", "block_rq_issue", []btf.Type{ptr("struct", "request_queue"), ptr("struct", "bio")}, "block_rq_issue", "",
			"block_rq_issue's rq argument is struct request_queue *, not struct request * (ctx[0], v5.11"},
		{"block_bio_queue 5.10", "block_bio_queue", []btf.Type{ptr("struct", "request_queue"), ptr("struct", "bio")}, "block_bio_queue", "_q", ""},
		{"block_bio_queue unknown", "block_bio_queue", []btf.Type{ptr("struct", "request_queue")}, "block_bio_queue", "",
			"block_bio_queue's bio argument is struct request_queue *"},
		{"tracepoint absent", "sched_waking", []btf.Type{task}, "block_rq_complete", "", ""},
		{"hook without a table row", "sched_waking", []btf.Type{task}, "sched_waking", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := tracepointForm(tracepointBTF(t, tc.tp, tc.args...), tc.hook)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("got %v, want nil", err)
			case tc.want == "" && f.prog != tc.prog:
				t.Errorf("form %q, want %q", f.prog, tc.prog)
			case tc.want == "" && (f.older == "") != (tc.prog == ""):
				t.Errorf("form %q says older %q", f.prog, f.older)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want %q", err, tc.want)
			case err != nil && !errors.Is(err, ebpf.ErrNotSupported):
				t.Errorf("%v does not classify as not supported", err)
			}
		})
	}
}

// A kernel too old is one line naming the release, the floor and the fact.
func TestKernelTooOldLine(t *testing.T) {
	_, why := tracepointForm(tracepointBTF(t, "sched_switch", &btf.Int{Name: "_Bool", Size: 1}), "sched_switch")
	err := &kernelTooOld{"5.4.0-1-amd64", why}
	want := "Linux 5.4.0-1-amd64 cannot run tmpprobe (needs 5.10 or later, with BTF): sched_switch has no prev_state argument (ctx[3], v5.18, commit fa2c3254d7cf)"
	if got := err.Error(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if Classify(err) != VerdictNotSupported {
		t.Errorf("class %s", Classify(err))
	}
}

// This kernel (and each vmtest kernel, where the probe tests run too) has
// every argument where the programs read it.
func TestThisKernelPasses(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		t.Skip("no kernel BTF")
	}
	cache := btf.NewCache()
	if err := checkKernel(cache); err != nil {
		t.Fatal(err)
	}
	kernel, err := cache.Kernel()
	if err != nil {
		t.Fatal(err)
	}
	for hook := range tpForms {
		f, err := tracepointForm(kernel, hook)
		if err != nil {
			t.Errorf("%s: %v", hook, err)
		}
		t.Logf("%s: form %q %s", hook, f.prog, f.older)
	}
}
