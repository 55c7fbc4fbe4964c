package explain

import (
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// The evidence, entry by entry: every sign of every mechanism, every
// fact and mount option that moves one, and every count of work a
// mechanism moves, each with a case it ties and stated here apart from
// the tables, so that an entry removed, or a name that stops being the
// probe's or preflight's, fails a case.
func TestEvidence(t *testing.T) {
	stage, label := StageSign, LabelSign
	fact := func(name string) EnvChange { return EnvChange{Name: "dirs[0]." + name, Fact: name, Old: "a", New: "b"} }
	mounted := func(opt string) EnvChange {
		return EnvChange{Name: "dirs[0]." + results.FactMountOptions, Fact: results.FactMountOptions, Added: []string{opt}}
	}
	// A sign of each mechanism, through a fact that moves it.
	signs := []struct {
		change EnvChange
		sign   Sign
	}{
		{fact(results.FactWriteCache), stage(results.StageDevFlush)},
		{fact(results.FactWriteCache), stage(results.StageBioFlush)},
		{fact(results.FactWriteCache), stage(results.StageBioFUA)},
		{fact(results.FactWriteCache), stage(results.StageJBD2Commit)},
		{fact(results.FactWriteCache), label(results.OffBlockedJBD2)},
		{fact(results.FactWriteCache), label(results.OffSleepJBD2)},
		{fact(results.FactDiscardMax), stage(results.StageDevDiscard)},
		{fact(results.FactDiscardMax), stage(results.StageBioDiscard)},
		{fact(results.FactJournal), stage(results.StageJBD2Commit)},
		{fact(results.FactJournal), stage(results.StageJBD2Handle)},
		{fact(results.FactJournal), stage(results.StageDevFlush)},
		{fact(results.FactJournal), stage(results.StageDevWrite)},
		{fact(results.FactJournal), label(results.OffBlockedJBD2)},
		{fact(results.FactJournal), label(results.OffSleepJBD2)},
		{fact(results.FactScheduler), stage(results.StageDevWrite)},
		{fact(results.FactScheduler), stage(results.StageDevRead)},
		{fact(results.FactScheduler), stage(results.StageDevDiscard)},
		{fact(results.FactScheduler), stage(results.StageDevFlush)},
		{fact(results.FactScheduler), label(results.OffBlockedIRQ)},
		{fact(results.FactScheduler), label(results.OffSleepIRQ)},
		{fact(results.FactScheduler), label(results.OffBlockedJBD2)},
		{fact(results.FactScheduler), label(results.OffSleepJBD2)},
		{fact(results.FactDirtyRatio), stage(results.StageDevWrite)},
		{fact(results.FactDirtyRatio), stage(results.StageBioWrite)},
		{fact(results.FactDirtyRatio), label(results.OffBlockedKworker)},
		{fact(results.FactDirtyRatio), label(results.OffSleepKworker)},
		{fact(results.FactCPUMax), label(results.OffPreempted)},
		{fact(results.FactTHP), stage(results.StagePageFault)},
	}
	// Every fact and option that moves a mechanism, with a sign of it;
	// a zero sign: the fact moves user space; any: every figure.
	facts := []struct {
		change EnvChange
		sign   Sign
		any    bool
	}{
		{fact(results.FactFUA), stage(results.StageDevFlush), false},
		{fact(results.FactDiscardGran), stage(results.StageDevDiscard), false},
		{fact(results.FactFastCommit), stage(results.StageJBD2Commit), false},
		{fact(results.FactWBTLatency), stage(results.StageDevWrite), false},
		{fact(results.FactNrRequests), stage(results.StageDevWrite), false},
		{fact(results.FactRotational), stage(results.StageDevWrite), false},
		{fact(results.FactReadAhead), stage(results.StageDevRead), false},
		{fact(results.FactMaxSectors), stage(results.StageDevWrite), false},
		{fact(results.FactLoopDIO), stage(results.StageDevWrite), false},
		{fact(results.FactIOMax), stage(results.StageDevWrite), false},
		{fact(results.FactDirtyBgBytes), stage(results.StageDevWrite), false},
		{fact(results.FactDirtyBgRatio), stage(results.StageDevWrite), false},
		{fact(results.FactDirtyBytes), stage(results.StageDevWrite), false},
		{fact(results.FactDirtyExpire), stage(results.StageDevWrite), false},
		{fact(results.FactDirtyWriteback), stage(results.StageDevWrite), false},
		{fact(results.FactMemoryMax), stage(results.StagePageFault), false},
		{fact(results.FactPython), Sign{}, false},
		{fact(results.FactCPUMax), Sign{}, false},
		{fact(results.FactKernelRelease), Sign{}, true},
		{fact(results.FactKernelCmdline), Sign{}, true},
		{fact(results.FactCPUFreq), Sign{}, true},
		{fact(results.FactCPU), Sign{}, true},
		{fact(results.FactCPUs), Sign{}, true},
		{fact(results.FactBackend), Sign{}, true},
		{fact(results.FactFSType), Sign{}, true},
		{fact(results.FactOverlayUpper), Sign{}, true},
		{mounted("nobarrier"), stage(results.StageDevFlush), false},
		{mounted("discard"), stage(results.StageDevDiscard), false},
		{mounted("data=journal"), stage(results.StageJBD2Commit), false},
		{mounted("commit=30"), stage(results.StageJBD2Commit), false},
		{mounted("journal_async_commit"), stage(results.StageJBD2Commit), false},
		{mounted("journal_checksum"), stage(results.StageJBD2Commit), false},
		{mounted("min_batch_time=0"), stage(results.StageJBD2Commit), false},
		{mounted("max_batch_time=0"), stage(results.StageJBD2Commit), false},
		{mounted("fast_commit"), stage(results.StageJBD2Commit), false},
		{mounted("journal_ioprio=1"), stage(results.StageJBD2Commit), false},
		{mounted("nodelalloc"), stage(results.StageDevWrite), false},
		{mounted("dioread_nolock"), stage(results.StageDevWrite), false},
		{mounted("noauto_da_alloc"), stage(results.StageDevWrite), false},
		{mounted("dax"), stage(results.StageDevWrite), false},
	}
	for _, c := range signs {
		if !ties(c.change, c.sign) {
			t.Errorf("%s changed: %+v does not tie it", c.change.Fact, c.sign)
		}
	}
	for _, c := range facts {
		name := c.change.Fact
		if c.change.Added != nil {
			name = c.change.Added[0]
		}
		switch {
		case c.any && !tiesArm(c.change):
			t.Errorf("%s changed: not tied to the arm, whose every figure it moves", name)
		case !c.any && !ties(c.change, c.sign):
			t.Errorf("%s changed: %+v does not tie it", name, c.sign)
		}
	}
	// What a mechanism moves of the work per op, through a fact that
	// moves it.
	for _, c := range []struct {
		count  string
		change EnvChange
	}{
		{results.WorkFlushes, fact(results.FactWriteCache)},
		{results.WorkDeviceWrites, fact(results.FactDirtyRatio)},
		{results.WorkDiscards, fact(results.FactDiscardMax)},
		{results.WorkDeviceReads, fact(results.FactScheduler)},
		{results.WorkDeviceBytes, fact(results.FactDirtyRatio)},
		{results.WorkJournalCommits, fact(results.FactJournal)},
		{results.WorkPageFaults, fact(results.FactTHP)},
	} {
		w := Work{Verdict: WorkMore, Changed: []WorkCount{{Name: c.count, Old: 0, New: 1, Changed: true}}}
		if got := WorkCulprits(w, []EnvChange{c.change}, nil); len(got) != 1 {
			t.Errorf("%s/op 0 → 1 with %s changed: culprits %+v, want it", c.count, c.change.Fact, got)
		}
	}
	// And a sign ties no mechanism it is not evidence of.
	if ties(fact(results.FactDiscardMax), stage(results.StageDevFlush)) || ties(fact(results.FactWriteCache), label(results.OffPreempted)) {
		t.Error("a sign tied a mechanism it is no evidence of")
	}
}

// ties says a change of the environment is tied to a term whose one
// moved figure is of sign (user space's whole time, for the zero sign).
func ties(change EnvChange, sign Sign) bool {
	term := Term{Name: "fsync", Delta: 1000, Details: []Detail{{Name: "figure", Unit: "ns", Old: 0, New: 1000, Of: sign}}}
	if sign == (Sign{}) {
		term = Term{Name: results.UserTerm, Delta: 1000}
	}
	terms := []Term{term}
	TieCulprits(Explained{Arm: results.CaseID{Arm: "a"}}, terms, []EnvChange{change}, nil, nil)
	return len(terms[0].Culprits) == 1 && terms[0].Culprits[0].Cause != nil
}

// tiesArm says a change is tied to the arm as a whole.
func tiesArm(change EnvChange) bool {
	env := []EnvChange{change}
	TieCulprits(Explained{Arm: results.CaseID{Arm: "a"}}, []Term{{Name: "fsync", Delta: 1000}}, env, nil, nil)
	return len(env[0].Explains) == 1 && env[0].Explains[0].Term == ""
}
