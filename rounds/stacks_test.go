package rounds

import (
	"context"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// stackScript is a script whose tracer takes stacks where asked, if it
// can (StackTracer), and which checks every batch against what it took.
type stackScript struct {
	*script
	can    bool // it takes stacks at all
	on     bool // the next Attach takes them
	taking bool // the attached tracer takes them
}

func (s *stackScript) TakeStacks(on bool) bool { s.on = on && s.can; return s.can }
func (s *stackScript) Attach() error           { s.taking = s.on; return s.script.Attach() }

func (s *stackScript) Batch(ctx context.Context, c int, b *results.Batch) error {
	want := s.can && b.Traced && b.Round%2 == 1
	if b.StacksTaken != want || b.StacksTaken != (b.Traced && s.taking) {
		s.t.Errorf("case %d round %d traced=%v: stacks taken %v (tracer taking them %v), want %v", c, b.Round, b.Traced, b.StacksTaken, s.taking, want)
	}
	return s.script.Batch(ctx, c, b)
}

func (s *stackScript) Live(c int) bool { return s.script.Live(c) }

// A tracer that takes stacks takes them in the odd rounds' traced
// batches only, re-attached where a traced half follows one that took
// the other kind; one that takes none (none asked, or the kernel
// refused them) marks no batch and is never re-attached for them: a
// detach then an attach with no batch between was a second attach of
// fentry programs at once, which 5.10 refused.
func TestStacksInOddRounds(t *testing.T) {
	plan := Plan{Groups: [][]int{{0, 1}}, Seed: 7, Rounds: 12, Untraced: true, Traced: true, Ops: 1}
	for _, can := range []bool{true, false} {
		s := &stackScript{script: newScript(t, 2, false, nil), can: can}
		if _, err := (&Runner{Plan: plan, Tracer: s}).Run(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		reattached := 0
		for i := 1; i < len(s.log); i++ {
			if s.log[i-1] == "detach" && s.log[i] == "attach" {
				reattached++
			}
		}
		if !can && reattached > 0 || can && reattached == 0 {
			t.Errorf("can take stacks %v: re-attached %d times between batches: %v", can, reattached, s.log)
		}
	}
}
