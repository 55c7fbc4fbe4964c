//go:build linux

package session

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/results"
)

// labs is a lab session of TemporaryFile in Go, two rounds, throughput
// only (no probe: no root), saved to out.
func labs(t *testing.T, out string) Labs {
	t.Helper()
	sel, err := arms.Select([]string{"TemporaryFile"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	plan := &arms.Plan{Arms: sel, Runtimes: []arms.Runtime{{Name: "go"}}, Dirs: []string{t.TempDir()}, Payloads: []int{400},
		Rounds: 2, MinBatch: 2 * time.Millisecond, Seed: 1, Baseline: true, BatchTimeout: time.Minute}
	return Labs{Plan: plan, Args: []string{"run", "TemporaryFile", "--attach", "none"}, Stderr: new(strings.Builder),
		Outputs: Outputs{Format: "text", Sort: "time", Why: "short", Out: out}}
}

// A lab session without the probe: it runs its arms, reports them, saves
// the run directory, and its run record is the configuration's: its kind,
// its command line, no backend.
func TestLabsRunReportAndSave(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	l := labs(t, dir)
	var stdout strings.Builder
	out, err := RunLabs(newInterrupts(), l, &stdout)
	if err != nil {
		t.Fatal(err)
	}
	run := out.Run
	if run.Kind != results.KindLabs || !slices.Equal(run.Args, l.Args) || run.Meta.Backend != "none" || !run.Complete || run.Started.IsZero() {
		t.Errorf("run: kind %s, args %q, backend %q, complete %v, started %v: want the labs, the configuration's args, none, complete",
			run.Kind, run.Args, run.Meta.Backend, run.Complete, run.Started)
	}
	if len(run.Arms) != 1 || run.Arms[0].Arm != "TemporaryFile" || run.Arms[0].Error != "" || len(out.Sums) != 1 || !out.Sums[0].OpsPerS.Known() {
		t.Fatalf("arms %+v: want TemporaryFile measured", run.Arms)
	}
	if !strings.Contains(stdout.String(), "TemporaryFile") {
		t.Errorf("the report does not name the arm:\n%s", stdout.String())
	}
	saved, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Run.Arms) != 1 || !slices.Equal(saved.Run.Args, l.Args) || !saved.Run.Complete {
		t.Errorf("saved run: %d arms, args %q, complete %v", len(saved.Run.Arms), saved.Run.Args, saved.Run.Complete)
	}
	for _, f := range []string{"run.json", "arms.csv", "syscalls.csv", "report.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("--out lacks %s: %v", f, err)
		}
	}
}

// Each way a lab session ends: its typed error, the exit status it
// gives, and what it saved: nothing before the measuring began, and
// after it, the run as far as it went.
func TestLabsEndings(t *testing.T) {
	refused := errors.New("operation not permitted")
	for _, c := range []struct {
		name   string
		set    func(t *testing.T, l *Labs, in *Interrupts)
		want   any
		status int
		saved  bool // --out holds the run
		whole  bool // it ran every round (Run.Complete)
	}{
		{"interrupted before the run", func(t *testing.T, l *Labs, in *Interrupts) { in.receive(syscall.SIGINT) },
			&Interrupted{}, 130, false, false},
		{"interrupted while measuring", func(t *testing.T, l *Labs, in *Interrupts) {
			var once sync.Once
			l.Progress = func() (func(arms.Progress), func()) {
				return func(arms.Progress) { once.Do(func() { in.receive(syscall.SIGTERM) }) }, func() {}
			}
		}, &Interrupted{}, 143, true, false},
		{"an arm failed", func(t *testing.T, l *Labs, in *Interrupts) { l.Plan.BatchTimeout = time.Nanosecond },
			ArmsFailed{}, ExitFailed, true, true},
		{"an output could not be written", func(t *testing.T, l *Labs, in *Interrupts) {
			gone := filepath.Join(t.TempDir(), "gone")
			if err := os.Mkdir(gone, 0o755); err != nil {
				t.Fatal(err)
			}
			l.Outputs.CSV = filepath.Join(gone, "syscalls.csv")
			l.Progress = func() (func(arms.Progress), func()) { return func(arms.Progress) {}, func() { os.RemoveAll(gone) } }
		}, &OutputError{}, ExitFailed, true, true},
		{"the probe refused", func(t *testing.T, l *Labs, in *Interrupts) {
			l.Backend = probe.Backend("tracepoint")
			probeOpen = func(probe.Options) (*probe.Probe, error) { return nil, refused }
			t.Cleanup(func() { probeOpen = probe.Open })
		}, &ProbeError{}, ExitUsage, false, false},
		{"a dir preflight cannot read", func(t *testing.T, l *Labs, in *Interrupts) {
			l.Plan.Dirs = []string{filepath.Join(t.TempDir(), "nowhere")}
		}, &UsageError{}, ExitUsage, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			l, in := labs(t, dir), newInterrupts()
			c.set(t, &l, in)
			_, err := RunLabs(in, l, new(strings.Builder))
			if err == nil || !sameType(err, c.want) {
				t.Fatalf("error %T %v, want a %T", err, err, c.want)
			}
			if status, _ := ExitStatus(err); status != c.status {
				t.Errorf("exit status %d, want %d", status, c.status)
			}
			var pe *ProbeError
			if errors.As(err, &pe) && (!pe.AttachNone || !errors.Is(err, refused)) {
				t.Errorf("%v: want the kernel's error, and --attach none offered", err)
			}
			saved, lerr := Load(dir)
			switch {
			case !c.saved && lerr == nil:
				t.Errorf("--out holds a run")
			case c.saved && lerr != nil:
				t.Fatalf("--out: %v", lerr)
			case c.saved && saved.Run.Complete != c.whole:
				t.Errorf("the saved run's complete is %v, want %v", saved.Run.Complete, c.whole)
			case errors.As(err, new(ArmsFailed)) && saved.Run.Arms[0].Error == "":
				t.Errorf("the saved run's arm has no error")
			}
			var oe *OutputError
			if errors.As(err, &oe) && !strings.Contains(oe.Msg, "saved: "+dir) {
				t.Errorf("%q does not say --out was saved", oe.Msg)
			}
		})
	}
}

// sameType says err is of the type of want.
func sameType(err error, want any) bool {
	return errors.As(err, reflect.New(reflect.TypeOf(want)).Interface())
}
