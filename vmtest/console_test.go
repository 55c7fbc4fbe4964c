package vmtest

import (
	"reflect"
	"strings"
	"testing"
)

const csvHead = "lab,arm,runtime,dir,payload_bytes,size_bytes,ops,syscall,stage,calls,calls_per_op,backend\n"

func TestParseConsole(t *testing.T) {
	out := strings.ReplaceAll(`[    0.000000] Linux version 6.1.0
VMTEST boot 4.10s
VMTEST cmd-begin check: /tmpprobe check
tracepoint     yes  tracepoints via tp_btf
VMTEST cmd-end check at=55.28s exit=0
VMTEST cmd-begin run kprobe: /tmpprobe run --attach kprobe
report line
VMTEST cmd-end run kprobe at=65.64s exit=2
VMTEST csv-begin kprobe
`+csvHead+`modes,mkstemp-fsync,go,/tmp,400,0,50,fsync,,50,1,kprobe
VMTEST csv-end kprobe
VMTEST leftovers programs=0 maps=0 links=0 kprobes=""
VMTEST done at=84.02s
[   84.1] reboot: Power down
`, "\n", "\r\n")
	c, err := ParseConsole(out)
	if err != nil {
		t.Fatal(err)
	}
	if c.Boot != "4.10s" || c.Done != "84.02s" || c.Leftovers != `programs=0 maps=0 links=0 kprobes=""` {
		t.Errorf("boot %q done %q leftovers %q", c.Boot, c.Done, c.Leftovers)
	}
	if !reflect.DeepEqual(c.Exit, map[string]int{"check": 0, "run kprobe": 2}) {
		t.Errorf("exit codes %v", c.Exit)
	}
	if c.Output["run kprobe"] != "report line" {
		t.Errorf("output %q", c.Output["run kprobe"])
	}
	if rows := c.CSV["kprobe"]; len(rows) != 1 || rows[0]["syscall"] != "fsync" || rows[0]["backend"] != "kprobe" {
		t.Errorf("CSV rows %v", rows)
	}
}

func rows(t *testing.T, csv string) []Row {
	t.Helper()
	r, err := parseCSV(csvHead + csv)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCountsSplitArmFromRuntime(t *testing.T) {
	tp := rows(t, `modes,a,go,/tmp,400,0,50,openat[create],,50,1,tracepoint
modes,a,go,/tmp,400,0,50,futex,,1,0.02,tracepoint
modes,a,go,/tmp,400,0,50,user,page_fault,9,0.18,tracepoint
`)
	kp := rows(t, `modes,a,go,/tmp,400,0,50,openat[create],,100,2,kprobe
modes,a,go,/tmp,400,0,50,openat[create],do_sys_openat2,50,1,kprobe
`)
	diffs := DiffCounts(SyscallCounts(tp, false), SyscallCounts(kp, false))
	if len(diffs) != 1 || !strings.Contains(diffs[0], `openat[create]: "1" vs "2"`) {
		t.Errorf("arm diffs %q", diffs)
	}
	diffs = DiffCounts(SyscallCounts(tp, true), SyscallCounts(kp, true))
	if len(diffs) != 1 || !strings.Contains(diffs[0], `futex: "0.02" vs ""`) {
		t.Errorf("runtime diffs %q", diffs)
	}
}

func TestCheckStages(t *testing.T) {
	for _, tc := range []struct {
		name, csv string
		probs     []string
	}{
		{"complete", `modes,a,go,/tmp,400,0,50,fsync,,50,1,kprobe
modes,a,go,/tmp,400,0,50,fsync,vfs_fsync_range,50,1,kprobe
modes,a,go,/tmp,400,0,50,write,,50,1,kprobe
`, nil},
		{"missing and short", `modes,a,go,/tmp,400,0,50,openat[tmpfile],,50,1,kprobe
modes,a,go,/tmp,400,0,50,linkat,,50,1,kprobe
modes,a,go,/tmp,400,0,50,linkat,do_linkat,49,0.98,kprobe
modes,a,go,/tmp,400,0,50,linkat,vfs_link,50,1,kprobe
`, []string{
			"modes/a/go/400/0: no openat[tmpfile] > do_sys_openat2 row",
			"modes/a/go/400/0: linkat > do_linkat 49 calls, syscall 50",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CheckStages(rows(t, tc.csv)); !reflect.DeepEqual(got, tc.probs) {
				t.Errorf("got %q\nwant %q", got, tc.probs)
			}
		})
	}
}

// The kprobe.multi verdicts come from check's hook type row and from the
// report footer, as the guest prints them.
func TestCheckRowAndFooter(t *testing.T) {
	check := `HOOK TYPE      OK   WHY
kprobe         yes  on __x64_sys_openat
kprobe.multi   no   not supported: no kprobe.multi links (kernel built without CONFIG_FPROBE)
`
	for name, want := range map[string]string{"kprobe": "yes", "kprobe.multi": "no", "fentry": ""} {
		if got := CheckRow(check, name); got != want {
			t.Errorf("CheckRow(%s) = %q, want %q", name, got, want)
		}
	}
	run := "ARM ...\n\nbackend kprobe (kprobe.multi+kretprobe.multi on 9 syscalls and 9 stages, tracepoints via tp_btf) · kernel 6.12.117+deb12-amd64 · 1 CPUs\ndir /tmp: tmpfs\n"
	if got := FooterBackend(run); !strings.HasPrefix(got, "backend kprobe (kprobe.multi+kretprobe.multi on 9") || strings.Contains(got, "dir") {
		t.Errorf("FooterBackend = %q", got)
	}
	// Wrapped at 80 columns, as the report writes it since #21.
	wrapped := "ARM ...\n\nbackend kprobe (kprobe+kretprobe on 9 syscalls and 9 stages, tracepoints via\n  tp_btf; single kprobes, no kprobe.multi: not supported) · kernel 6.1 ·\n  1 CPUs\ndir /tmp: tmpfs\n"
	if got := FooterBackend(wrapped); !strings.Contains(got, "via tp_btf; single kprobes, no kprobe.multi: not supported) · kernel 6.1 · 1 CPUs") || strings.Contains(got, "dir") {
		t.Errorf("FooterBackend of a wrapped footer = %q", got)
	}
}
