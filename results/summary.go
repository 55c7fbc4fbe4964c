package results

import "sort"

// Summary is the view of one arm result that reports need: headline
// figures as medians over the measured rounds with their 95% intervals,
// and the attribution from the traced batches of those rounds, pooled.
type Summary struct {
	*ArmResult
	Protocol string
	// Rounds are the measured rounds in order; the figures below are
	// medians of their samples.
	Rounds []RoundSample
	// RoundCount is how many rounds the figures cover: len(Rounds), or
	// what a syscalls.csv says of the run it came from.
	RoundCount int
	OpsPerS    Estimate // of the untraced batches (traced, when none ran untraced)
	Ratio      Estimate // to the lab's baseline arm; set by SummarizeAll
	// RatioTo is the arm Ratio is taken against: the lab's baseline.
	RatioTo  string
	Observer Estimate // traced ÷ untraced ops/s, paired by round
	// StacksObserver is Observer of the traced batches that took stacks,
	// where the others took none (Batch.StacksTaken): what the stacks
	// cost on top of the syscall hooks; zero where the run did not
	// split them.
	StacksObserver Estimate
	// StacksApart: the traced batches that took stacks were not the
	// ones the traced figures come from (splitsStacks).
	StacksApart bool
	// Traced pools the measured traced batches: Ops and WallNs are sums,
	// Records are merged (the counts, and the histograms of single
	// calls). nil when nothing was traced.
	Traced        *Batch
	TracedOpsPerS float64 // of the pooled traced batches
	// The times per op below are medians over the traced rounds (see
	// times.go), as the table's figures are: a time the median of
	// every traced round's time per op.
	TracedWall      Estimate // wall time per op, with its interval
	WallNsPerOp     float64  // TracedWall's center
	KernelNsPerOp   float64  // Σ syscall time per op, less its run-queue wait
	UserNsPerOp     float64  // user space (UserTerm)
	RunQueueNsPerOp float64  // RunQueueTerm
	BetweenNsPerOp  float64  // BetweenTerm: 0 where user space is not measured
	// UserMeasured says user space is the threads' measured on-CPU time
	// outside syscalls (Run.UserMeasured), not what the syscalls leave of
	// the wall time.
	UserMeasured bool
	Classes      []ClassSummary
	// Work is the pooled traced batches' work per op (WorkPerOp).
	Work map[string]float64
	// Functions are the user time sampled by function, the most first,
	// and Sites each syscall class's call sites (code.go); Stacks how
	// the run took them. UnsampledNsPerOp is the median over the traced
	// rounds of the measured user time no sample stood for.
	Functions        []FunctionSummary
	Sites            []SiteSummary
	UnsampledNsPerOp float64
	Stacks           *Stacks
	// Recorded are the figures a syscalls.csv recorded of the run it came
	// from (Derived.Figures), which the figures above are; nil otherwise.
	Recorded *Figures
}

// RoundSample is one measured round of a case.
type RoundSample struct {
	Round int
	// Generation is the worker generation that ran the round (see
	// Batch.Generation): the unit of its intervals.
	Generation    int
	OpsPerS       float64 // the untraced batch; 0 when none ran
	TracedOpsPerS float64 // the traced batch; 0 when none ran
	// OwnCPUOpsPerS is the untraced batch's ops per second of the time
	// its worker was not waiting for a CPU: its wall time less its
	// run-queue wait (Batch.RunQueueWaitNs), the speed it ran at on the
	// CPU share it got; its ops/s where no wait was read, and the traced
	// batch's ops/s in a round that ran no untraced one.
	OwnCPUOpsPerS float64
	// Ratio is OwnCPUOpsPerS ÷ the baseline arm's in the same round (same
	// runtime, dir, parameter); 0 when either is missing. Not the headline
	// ops/s's: each case's worker is a process of its own, and beside CPU
	// hogs the share of a CPU each got differed between workers and runs,
	// so that on /dev/shm beside two hogs the ratios of ops/s moved 1.4–8.3%
	// between runs and these 0.4–1.2%, as quiet ones move (#43); where no
	// worker waited they are the same.
	Ratio float64
	// Terms are ns per op of the traced batch by syscall class (less its
	// run-queue wait), plus RunQueueTerm, UserTerm, and where user space
	// is measured BetweenTerm and RemainderTerm, and WallTerm, their sum:
	// the per-round samples the decompositions take medians of.
	Terms map[string]float64
	// Rows are the traced batch's time per op in each row (a class or a
	// stage of one), of which the breakdown prints the medians.
	Rows map[RowKey]RowTime
	// State are the traced batch's state variables (StateNames).
	State map[string]StateSum
	// Work is the traced batch's work per op (WorkPerOp).
	Work map[string]float64
	// Sites are each call site's part of its class's row per op
	// (code.go).
	Sites map[SiteKey]SiteTime
	// StacksOpsPerS is the ops/s of a traced batch that took stacks
	// where the run's others took none; the round's other traced figures
	// (TracedOpsPerS, Terms, ...) are of none.
	StacksOpsPerS float64
}

// Headline is the round's sample of the headline figure: its untraced
// ops/s, or its traced ops/s when it ran no untraced batch.
func (r *RoundSample) Headline() float64 {
	if r.OpsPerS > 0 {
		return r.OpsPerS
	}
	return r.TracedOpsPerS
}

// OwnCPU is the round's sample of what its ratio pairs: OwnCPUOpsPerS.
func (r *RoundSample) OwnCPU() float64 { return r.OwnCPUOpsPerS }

// ClassSummary is one syscall class (or stage) per op of the pooled
// traced batches, with percentiles of single calls.
type ClassSummary struct {
	Class      string
	Stage      string
	Calls      uint64
	CallsPerOp float64
	// NsPerOp and OffNsPerOp are medians over the traced rounds, the
	// Mean ones all the time in the row ÷ all the traced ops (the work
	// verdicts' unit times divide those by counts).
	NsPerOp, OffNsPerOp         float64
	MeanNsPerOp, MeanOffNsPerOp float64
	ErrPerOp                    float64
	BytesPerOp                  float64
	// OffByLabel splits OffNsPerOp by what the thread waited for, in the
	// shares of the row's pooled off-CPU time (ns per op).
	OffByLabel    map[string]float64
	P50, P95, P99 uint64
	// Beside marks device I/O matched to a syscall by time that the
	// syscall cannot have waited for (see waitsForIO): shown apart,
	// never explained as its cause.
	Beside bool
	// Overlapped marks a command's time waiting for its own children
	// (see waitsForChildren): shown, but in no sum and no term.
	Overlapped bool
	// Tail is its slowest calls, where a few carry much of its time.
	Tail *Tail
}

// waitsForChildren are the syscalls in which a process of a compared
// command, or of a trace that follows children, waits for a child that
// is followed too: the shell's wait4 while its child runs, vfork until
// the child execs. That time is the child's, already counted in the
// child's own syscalls and user time, so adding it too would count the
// child twice and leave user space (wall − Σ syscalls) negative by as
// much.
var waitsForChildren = map[string]bool{"wait4": true, "waitid": true, "vfork": true}

func (a *ArmResult) overlapped(class, stage string) bool {
	return (a.Lab == LabCompare || a.Children) && stage == "" && waitsForChildren[class]
}

// foldWaits takes a command's waits for its followed children out of a
// round's terms, as out of its sums: what is left of the wall time (user
// space, wall − Σ syscalls, or where user space is measured the
// remainder) gets back what they had taken from it.
func (a *ArmResult) foldWaits(terms map[string]float64, measured bool) {
	rest := UserTerm
	if measured {
		rest = RemainderTerm
	}
	for class := range waitsForChildren {
		if v, ok := terms[class]; ok && a.overlapped(class, "") {
			terms[rest] += v
			delete(terms, class)
		}
	}
}

// IsSyscall reports whether the row is a syscall's own time (not a stage,
// an event, or user space).
func (c *ClassSummary) IsSyscall() bool { return c.Stage == "" && c.Class != ClassUser }

// Unit names what one "op" is: a round trip of the buffers lab, a whole
// traced run, an entry into a region a traced program marked, or a lab op.
func (s *Summary) Unit() string {
	switch {
	case s.SizeBytes > 0:
		return "round"
	case s.IsRegion():
		return "entry"
	case s.OfCommand():
		return "run"
	}
	return "op"
}

// MBPerS is the buffers lab's metric: MiB of payload per second, from the
// headline ops/s (round trips per second).
func (s *Summary) MBPerS() Estimate {
	if s.SizeBytes == 0 {
		return Estimate{}
	}
	return s.OpsPerS.scale(float64(s.SizeBytes) / (1 << 20))
}

// batchOps is the ops of a batch; runs that predate per-batch sizes carry
// them on the arm.
func (a *ArmResult) batchOps(b *Batch) int {
	if b.Ops > 0 {
		return b.Ops
	}
	return a.Ops
}

func (a *ArmResult) opsPerS(b *Batch) float64 {
	if b.WallNs <= 0 {
		return 0
	}
	return float64(a.batchOps(b)) / (float64(b.WallNs) / 1e9)
}

// ownCPUOpsPerS is b's ops per second of its wall time less wait, the
// run-queue wait of its worker; its ops/s when the wait is not less than
// the wall time (a wait read around the batch takes in a little more).
func (a *ArmResult) ownCPUOpsPerS(b *Batch, wait int64) float64 {
	if wait <= 0 || wait >= b.WallNs {
		return a.opsPerS(b)
	}
	return float64(a.batchOps(b)) / (float64(b.WallNs-wait) / 1e9)
}

// Summarize computes the figures of one arm result; the ratio to its
// baseline needs the others and comes from SummarizeAll, which also
// decides for the whole run whether user space was measured (here the
// arm's own batches say).
func Summarize(a *ArmResult, protocol string) *Summary {
	return summarize(a, protocol, a.userMeasured(), nil)
}

// summarize is Summarize with the run's decision on user space and its
// stacks (nil: none, or not known to the caller).
func summarize(a *ArmResult, protocol string, measured bool, stacks *Stacks) *Summary {
	s := &Summary{ArmResult: a, Protocol: protocol, UserMeasured: measured}
	byRound := map[int]*RoundSample{}
	pooled := Batch{Traced: true}
	split := splitsStacks(a)
	s.StacksApart = split
	// Every generation starts with a warm-up batch of each case (the first
	// after calibration), so runs saved before generations were recorded
	// still tell them apart.
	warmups := 0
	for i := range a.Batches {
		b := &a.Batches[i]
		if b.Kind == BatchWarmup {
			warmups++
		}
		if !b.Measured() {
			continue
		}
		r := byRound[b.Round]
		if r == nil {
			r = &RoundSample{Round: b.Round, Generation: b.Generation}
			if r.Generation == 0 {
				r.Generation = warmups
			}
			byRound[b.Round] = r
		}
		if !b.Traced {
			r.OpsPerS = a.opsPerS(b)
			r.OwnCPUOpsPerS = a.ownCPUOpsPerS(b, b.RunQueueWaitNs)
			continue
		}
		if split && b.StacksTaken {
			// Its counts are exact as every traced batch's: the work an
			// op did is judged from every traced round (a diff's work
			// gate needs four a side), its times from the others.
			r.StacksOpsPerS = a.opsPerS(b)
			r.Work = WorkPerOp(b.Records, float64(a.batchOps(b)))
			pooled.Stacks = MergeStackRecords(pooled.Stacks, b.Stacks)
			continue
		}
		r.TracedOpsPerS = a.opsPerS(b)
		if r.OpsPerS == 0 {
			// A traced batch of compare sums the waits of a process
			// tree's threads, which can overlap: its ops/s, unchanged.
			r.OwnCPUOpsPerS = r.TracedOpsPerS
		}
		r.Terms = roundTerms(b, float64(a.batchOps(b)), measured)
		r.Rows = roundRows(b, float64(a.batchOps(b)))
		r.State = roundState(b, float64(a.batchOps(b)))
		r.Work = WorkPerOp(b.Records, float64(a.batchOps(b)))
		r.Sites = roundSites(b, float64(a.batchOps(b)), stacks)
		pooled.Ops += a.batchOps(b)
		pooled.WallNs += b.WallNs
		pooled.Records = MergeRecords(pooled.Records, b.Records)
		pooled.Neighbours = SumNeighbours(pooled.Neighbours, b.Neighbours)
		pooled.Stacks = MergeStackRecords(pooled.Stacks, b.Stacks)
	}
	for _, r := range byRound {
		s.Rounds = append(s.Rounds, *r)
	}
	sort.Slice(s.Rounds, func(i, j int) bool { return s.Rounds[i].Round < s.Rounds[j].Round })
	s.OpsPerS = ClusteredMedian(s.Units(func(r *RoundSample) float64 { return r.Headline() }))
	s.Observer = ClusteredMedian(s.Units(func(r *RoundSample) float64 {
		if r.OpsPerS > 0 && r.TracedOpsPerS > 0 {
			return r.TracedOpsPerS / r.OpsPerS
		}
		return 0
	}))
	if split {
		s.StacksObserver = ClusteredMedian(s.Units(func(r *RoundSample) float64 {
			if r.OpsPerS > 0 && r.StacksOpsPerS > 0 {
				return r.StacksOpsPerS / r.OpsPerS
			}
			return 0
		}))
	}
	s.RoundCount = len(s.Rounds)
	if pooled.Ops == 0 {
		return s
	}
	s.Traced = &pooled
	for i := range s.Rounds {
		a.foldWaits(s.Rounds[i].Terms, measured)
	}
	ops := float64(pooled.Ops)
	s.TracedOpsPerS = a.opsPerS(&pooled)
	s.Work = WorkPerOp(pooled.Records, ops)
	for _, r := range pooled.Records {
		c := ClassSummary{
			Class: r.Class, Stage: r.Stage, Calls: r.Calls,
			CallsPerOp: float64(r.Calls) / ops,
			NsPerOp:    float64(r.TotalNs) / ops,
			OffNsPerOp: float64(r.OffCPUNs) / ops,
			ErrPerOp:   float64(r.Errors) / ops,
			BytesPerOp: float64(r.Bytes) / ops,
			Beside:     r.Stage != "" && r.Class != ClassUser && !canWaitFor(r.Class, r.Stage),
			Overlapped: a.overlapped(r.Class, r.Stage),
		}
		c.P50, c.P95, c.P99 = r.percentiles()
		if c.IsSyscall() {
			c.Tail = tailOf(&r)
		}
		if len(r.OffNs) > 0 {
			c.OffByLabel = map[string]float64{}
			for k, v := range r.OffNs {
				c.OffByLabel[k] = float64(v) / ops
			}
		}
		s.Classes = append(s.Classes, c)
	}
	s.tracedTimes()
	sortClasses(s.Classes)
	s.codeSummaries(stacks)
	return s
}

// splitsStacks says whether a's traced batches took stacks in some and
// none in others: then the syscall terms, TRACED and every traced figure
// come from the ones that took none, and the code (functions, call
// sites) from the ones that took them.
func splitsStacks(a *ArmResult) bool {
	var with, without bool
	for i := range a.Batches {
		if b := &a.Batches[i]; b.Traced && b.Measured() {
			with, without = with || b.StacksTaken, without || !b.StacksTaken
		}
	}
	return with && without
}

// Units are a figure's positive per-round samples, each with the unit it
// was drawn in (see UnitSummaries): the round's worker generation, or the
// round itself where the run has no generations (the seed protocol runs
// each case in one worker; a trace samples one target).
func (s *Summary) Units(f func(*RoundSample) float64) []Unit {
	var out []Unit
	for i := range s.Rounds {
		r := &s.Rounds[i]
		if v := f(r); v > 0 && finite(v) {
			out = append(out, Unit{Unit: s.UnitOf(r), Value: v})
		}
	}
	return out
}

// UnitOf is the unit a round of s was drawn in (see Units).
func (s *Summary) UnitOf(r *RoundSample) int {
	if s.Protocol == ProtocolSeed {
		return r.Round
	}
	for i := range s.Rounds {
		if s.Rounds[i].Generation == 0 {
			return r.Round
		}
	}
	return r.Generation
}

// UnitSamples are a figure's samples summarized per unit: what its
// interval and its tests between runs count (see UnitSummaries).
func (s *Summary) UnitSamples(f func(*RoundSample) float64) []float64 {
	return UnitSummaries(s.Units(f))
}

// SortKeys are the orders of a breakdown: time per op (the default),
// calls per op, off-CPU time per op, or the class's name.
var SortKeys = []string{"time", "calls", "offcpu", "name"}

func sortClasses(cs []ClassSummary) { SortClasses(cs, "time") }

// SortClasses orders syscalls by one of SortKeys, largest first (name: in
// alphabetical order), each followed by its stages (by stage name);
// classes seen only through stages (user space) come last.
func SortClasses(cs []ClassSummary, by string) {
	own := map[string]float64{}
	for _, c := range cs {
		if !c.IsSyscall() {
			continue
		}
		switch by {
		case "calls":
			own[c.Class] = c.CallsPerOp
		case "offcpu":
			own[c.Class] = c.OffNsPerOp
		case "name":
			own[c.Class] = 0
		default:
			own[c.Class] = c.NsPerOp
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		oa, aok := own[a.Class]
		ob, bok := own[b.Class]
		if aok != bok {
			return aok
		}
		if a.Class != b.Class {
			if oa != ob {
				return oa > ob
			}
			return a.Class < b.Class
		}
		if (a.Stage == "") != (b.Stage == "") {
			return a.Stage == ""
		}
		return a.Stage < b.Stage
	})
}

// Stage returns the row of a stage inside a class, or a zero row.
func (s *Summary) Stage(class, stage string) ClassSummary {
	for _, c := range s.Classes {
		if c.Class == class && c.Stage == stage {
			return c
		}
	}
	return ClassSummary{Class: class, Stage: stage}
}

// Class returns the syscall-level row of a class, or a zero row.
func (s *Summary) Class(name string) ClassSummary { return s.Stage(name, "") }

// SummarizeAll summarizes every result of a run and fills each one's ratio
// to its lab's baseline arm with the same runtime, dir and parameter: with
// the rounds protocol the median of per-round ratios (each round's two
// batches ran in the same minute of the machine), with the seed protocol
// the ratio of the two medians, as the labs compute it.
func SummarizeAll(run *Run, baseline map[string]string) []*Summary {
	baseline = CommandBaseline(run, baseline)
	out := make([]*Summary, len(run.Arms))
	base := map[CaseID]*Summary{}
	// One definition of user space for every arm of a run, so that a
	// gap between two arms subtracts like from like.
	measured := run.UserMeasured()
	for i := range run.Arms {
		out[i] = summarize(&run.Arms[i], run.Protocol.Name, measured, run.Stacks)
		if f := run.Derived.FiguresOf(i); f != nil {
			out[i].recorded(f)
		}
		if baseline[run.Arms[i].Lab] == run.Arms[i].Arm {
			base[run.Arms[i].Peer()] = out[i]
		}
	}
	for _, s := range out {
		b := base[s.Peer()]
		if s.Recorded != nil {
			// The file's ratio is the run's: to the same baseline.
			if b != nil && s.Recorded.Ratio != nil {
				s.RatioTo = b.Arm
			}
			continue
		}
		if b == nil || !b.OpsPerS.Known() || !s.OpsPerS.Known() {
			continue
		}
		if run.Protocol.Name != ProtocolSeed {
			ratio := roundRatio(b, (*RoundSample).OwnCPU)
			for i := range s.Rounds {
				s.Rounds[i].Ratio = ratio(&s.Rounds[i])
			}
		}
		s.Ratio, s.RatioTo = PairedRatio(s, b, (*RoundSample).OwnCPU), b.Arm
	}
	if run.Derived.Between != nil {
		run.Derived.Between.Widen(run, out)
	}
	return out
}

// recorded makes the figures a syscalls.csv recorded the summary's: one
// round stands in for the batches, and the file's figures describe the
// run it came from.
func (s *Summary) recorded(f *Figures) {
	s.Recorded = f
	s.OpsPerS, s.RoundCount = f.OpsPerS, f.Rounds
	// No observer in the file is none measured (a trace, --no-baseline):
	// the rebuilt run's untraced batch, made from the traced one's rate,
	// would make it 1.
	s.Observer = Estimate{}
	if f.Observer != nil {
		s.Observer = *f.Observer
	}
	if f.Ratio != nil {
		s.Ratio = *f.Ratio
	}
	if t := f.Times; t != nil && s.Traced != nil {
		s.WallNsPerOp, s.KernelNsPerOp, s.UserNsPerOp, s.RunQueueNsPerOp = t.WallNs, t.KernelNs, t.UserNs, t.RunQueueNs
		s.BetweenNsPerOp = t.BetweenNs
		s.TracedWall = Point(t.WallNs)
		for i := range s.Classes {
			c := &s.Classes[i]
			if row, ok := t.Rows[RowKey{c.Class, c.Stage}]; ok {
				c.NsPerOp, c.OffNsPerOp = row.Ns, row.OffNs
				c.scaleLabels()
			}
		}
		s.recordedCode(t)
	}
}

// roundRatio pairs a round with the same round of b: the round's sample
// of f ÷ b's, 0 when either is missing.
func roundRatio(b *Summary, f func(*RoundSample) float64) func(*RoundSample) float64 {
	bv := map[int]float64{}
	for i := range b.Rounds {
		if v := f(&b.Rounds[i]); v > 0 {
			bv[b.Rounds[i].Round] = v
		}
	}
	return func(r *RoundSample) float64 {
		if v, w := f(r), bv[r.Round]; v > 0 && w > 0 {
			return v / w
		}
		return 0
	}
}

// PairedRatio is a's figure f ÷ b's. With the rounds protocol it is the
// median over a's units of the per-round ratios (roundRatio), since each
// round's two batches ran in the same minute of the machine; with the
// seed protocol, whose cases ran one after the other, the ratio of the
// two medians. Unknown when either has no sample of f.
func PairedRatio(a, b *Summary, f func(*RoundSample) float64) Estimate {
	if a.Protocol != ProtocolSeed {
		return ClusteredMedian(a.Units(roundRatio(b, f)))
	}
	ma, mb := ClusteredMedian(a.Units(f)), ClusteredMedian(b.Units(f))
	if !ma.Known() || !mb.Known() {
		return Estimate{}
	}
	return Point(ma.Center / mb.Center)
}

// PeerGroups splits summaries (kept in run order) into the groups a lab
// compares: same lab, runtime, dir and parameter (see CaseID.Peer).
func PeerGroups(sums []*Summary) [][]*Summary {
	return GroupInOrder(sums, func(s *Summary) CaseID { return s.Peer() })
}

// GroupInOrder splits items by key, groups in order of first appearance
// and items in their order, as reports list arms in the order they ran.
func GroupInOrder[T any, K comparable](items []T, key func(T) K) [][]T {
	var out [][]T
	idx := map[K]int{}
	for _, it := range items {
		k := key(it)
		j, ok := idx[k]
		if !ok {
			j = len(out)
			idx[k] = j
			out = append(out, nil)
		}
		out[j] = append(out[j], it)
	}
	return out
}

// RoundOps is the ops of the headline batch of a round: its untraced
// batch, or its traced one when it ran none.
func (s *Summary) RoundOps(round int) int {
	var traced int
	for i := range s.Batches {
		b := &s.Batches[i]
		if b.Measured() && b.Round == round {
			if !b.Traced {
				return s.batchOps(b)
			}
			traced = s.batchOps(b)
		}
	}
	return traced
}
