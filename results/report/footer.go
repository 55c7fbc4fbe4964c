package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// footer says how the numbers were taken — backend, host, protocol, the
// file system of each work dir — and everything that can change what
// they mean or was lost: warnings, notes, hooks not attached, dropped
// events, an incomplete run.
func footer(run *results.Run) []FooterLine {
	m := run.Meta
	var out []FooterLine
	add := func(kind FooterKind, format string, a ...any) {
		out = append(out, FooterLine{Kind: kind, Text: fmt.Sprintf(format, a...)})
	}
	backend := results.OrNone(m.Backend)
	if m.BackendDetail != "" {
		backend += " (" + m.BackendDetail + ")"
	}
	host := []string{"backend " + backend, "kernel " + results.OrNone(m.KernelRelease)}
	if m.Machine != "" {
		host = append(host, m.Machine)
	}
	if m.CPUs > 0 {
		host = append(host, fmt.Sprintf("%d CPUs", m.CPUs))
	}
	if m.Python != "" {
		host = append(host, "Python "+m.Python)
	}
	add(FooterFact, "%s", strings.Join(host, " · "))
	if m.CPU != "" {
		add(FooterFact, "CPU: %s", m.CPU)
	}
	if line := protocolLine(run); line != "" {
		add(FooterFact, "%s", line)
	}
	if line := explain.StacksLine(run.Stacks); line != "" {
		add(FooterFact, "%s", line)
	}
	if line := betweenRunsLine(run); line != "" {
		add(FooterFact, "%s", line)
	}
	for _, d := range m.Dirs {
		add(FooterFact, "%s", dirLine(d))
	}
	if env := envLine(m); env != "" {
		add(FooterFact, "%s", env)
	}
	if line := untracedWaitLine(run); line != "" {
		add(FooterFact, "%s", line)
	}
	for _, l := range neighbourLines(run) {
		add(FooterFact, "%s", l)
	}
	for _, w := range run.Derived.Warnings {
		add(FooterWarning, "%s", WarningText(w))
	}
	if run.Source == results.SourceCSV {
		add(FooterNote, "%s", csvNote)
	}
	for i := range m.Notes {
		n := &m.Notes[i]
		out = append(out, FooterLine{Kind: FooterNote, Text: NoteText(*n, run.Kind), Note: n,
			Repeated: n.Kind == results.NoteBackendSkipped})
	}
	for _, h := range m.MissingHooks {
		add(FooterNote, "hook not attached: %s", h)
	}
	var lost []string
	for _, k := range slices.Sorted(maps.Keys(run.Drops)) {
		if v := run.Drops[k]; v > 0 {
			lost = append(lost, fmt.Sprintf("%s=%d", k, v))
		}
	}
	if len(lost) > 0 {
		add(FooterWarning, "events dropped: %s", strings.Join(lost, " "))
	}
	for _, a := range run.Arms {
		if failed, status := failedRuns(a); failed > 0 {
			add(FooterWarning, "%s exited non-zero in %d of its %d runs (status %d): --ignore-failure counted them as any other", a.Arm, failed, len(a.Batches), status)
		}
	}
	if !run.Complete {
		add(FooterWarning, "the run is incomplete")
	}
	add(FooterNote, "%s", termsLine)
	return out
}

// csvNote says what a run rebuilt from a syscalls.csv lacks.
const csvNote = "rebuilt from a syscalls.csv: one round, so no intervals and no histograms"

// dirLine names a work dir's file system, its journal, its device's
// write cache and queues.
func dirLine(d results.DirFacts) string {
	line := fmt.Sprintf("dir %s: %s on %s (%s)", d.Dir, d.FSType, d.Source, d.Options)
	if d.Journal != "" {
		line += " · journal " + d.Journal
	}
	if d.WriteCache != "" {
		line += fmt.Sprintf(" · %s cache, FUA %s", d.WriteCache, d.FUA)
	}
	if d.Upper != "" {
		line += " · overlay: upper layer " + d.Upper
	}
	for _, q := range d.Queues {
		line += fmt.Sprintf(" · %s: %s, wbt %s µs, %s requests", q.Device, q.Scheduler, q.WbtLatUsec, q.NrRequests)
	}
	return line
}

// protocolLine says in one line which protocol made the numbers.
func protocolLine(run *results.Run) string {
	p := run.Protocol
	switch p.Name {
	case results.ProtocolRounds:
		rounds := fmt.Sprintf("%d rounds", p.Rounds)
		if p.Until > 0 {
			// --until stops each case on its own: say what ran, not the cap.
			lo, hi := roundsRan(run)
			ran := fmt.Sprintf("%d–%d", lo, hi)
			if lo == hi {
				ran = fmt.Sprint(lo)
			}
			rounds = fmt.Sprintf("%s of up to %d rounds (--until %g%%)", ran, p.Rounds, p.Until*100)
			if lo == hi && hi == p.Rounds { // compare: every command ran them all
				rounds = fmt.Sprintf("%d rounds (--until %g%%)", p.Rounds, p.Until*100)
			}
		}
		s := fmt.Sprintf("protocol rounds · %s in random order, seed %d · ", rounds, p.Seed)
		if p.FixedOps > 0 {
			s += fmt.Sprintf("%d %s a batch", p.FixedOps, plural(p.FixedOps, "op", "ops"))
		} else {
			s += fmt.Sprintf("batches ≥ %s", time.Duration(p.MinBatchNs))
		}
		if p.WorkerRounds > 0 {
			return s + fmt.Sprintf(" · fresh workers every %d rounds · medians over worker generations [95%% CI]", p.WorkerRounds)
		}
		return s + " · medians over rounds [95% CI]"
	case results.ProtocolSeed:
		return "protocol seed · the labs' method: arms in sequence, 1000 ops a batch × 5 (modes), one round trip × 7 (buffers), p50"
	}
	return ""
}

// roundsRan is the fewest and the most measured rounds an arm of run ran
// (a failed arm's are said on its FAILED line).
func roundsRan(run *results.Run) (lo, hi int) {
	for _, a := range run.Arms {
		if a.Error != "" {
			continue
		}
		n := results.MeasuredRounds(&a)
		if hi == 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	return lo, hi
}

// failedRuns counts a compared command's runs that exited non-zero, with
// the status of the last of them.
func failedRuns(a results.ArmResult) (n, status int) {
	for _, b := range a.Batches {
		if b.ExitStatus != 0 {
			n, status = n+1, b.ExitStatus
		}
	}
	return n, status
}

// betweenRunsLine says what a lab run's intervals cover: its own worker
// generations only, or also the spread between it and earlier runs like
// it (results.BetweenRuns), and how far that spread reached.
func betweenRunsLine(run *results.Run) string {
	if run.Protocol.Name != results.ProtocolRounds || len(run.Arms) == 0 || run.Kind.OfCommands() {
		return ""
	}
	b := run.Derived.Between
	if b == nil {
		return "intervals: this run's spread only; a run here can move more than that: save runs side by side (--out runs/NAME) and each later one's intervals include the spread between them"
	}
	if l := results.LeftOutText(b.LeftOut); l != "" {
		return betweenRunsSpread(run, b) + " (" + l + ")"
	}
	return betweenRunsSpread(run, b)
}

// betweenRunsSpread says which earlier runs the intervals include.
func betweenRunsSpread(run *results.Run, b *results.BetweenRuns) string {
	earlier := fmt.Sprintf("%d earlier run", len(b.Runs))
	if len(b.Runs) != 1 {
		earlier += "s"
	}
	if len(b.Runs) > 0 {
		earlier += " (" + strings.Join(b.Runs, ", ") + ")"
	}
	if !b.Measured() {
		return fmt.Sprintf("intervals: this run's spread only: %s like it in %s, and the spread between runs needs %d", earlier, b.From, results.MinRunsBetween-1)
	}
	var ratio, ops float64
	loDF, hiDF := math.Inf(1), 0.0
	for _, c := range b.Cases {
		ratio, ops = max(ratio, results.NextRunPct(c.RatioSpread())), max(ops, results.NextRunPct(c.OpsSpread()))
		for _, sp := range []results.Spread{c.RatioSpread(), c.OpsSpread()} {
			if sp.LogSD > 0 {
				loDF, hiDF = math.Min(loDF, sp.DegreesOfFreedom()), math.Max(hiDF, sp.DegreesOfFreedom())
			}
		}
	}
	if ratio == 0 && ops == 0 {
		return fmt.Sprintf("intervals: this run's spread; %s like it in %s measured the same", earlier, b.From)
	}
	df := fmt.Sprintf("%.0f", loDF)
	if hiDF > loDF {
		df += fmt.Sprintf("–%.0f", hiDF)
	}
	return fmt.Sprintf("intervals include the spread between this run and %s like it in %s, pooled over the arms that spread alike (%s degrees of freedom), so each holds the next run's median %.0f%% of the time: up to ±%s (ratios) and ±%s (ops/s)",
		earlier, b.From, df, 100*results.NextRunCover, results.Share(ratio), results.Share(ops))
}

// failures lists the failed arms in run order.
func failures(arms []results.ArmResult) []Failure {
	var out []Failure
	for _, a := range arms {
		if a.Error == "" {
			continue
		}
		head := fmt.Sprintf("%s/%s (%s, %s, %s)", a.Lab, a.Arm, a.Runtime, a.Dir, a.Param())
		if a.OfCommand() {
			head = a.Arm
		}
		f := Failure{Head: fmt.Sprintf("%s after %d batches: %s", head, len(a.Batches), errtext.FirstLine(a.Error))}
		lines := strings.Split(strings.TrimSpace(a.Stderr), "\n")
		if len(lines) > 8 {
			lines = lines[len(lines)-8:]
		}
		for _, l := range lines {
			if l != "" {
				f.Tail = append(f.Tail, l)
			}
		}
		out = append(out, f)
	}
	return out
}

// envLine names the host settings and the pressure over the run that
// move a lab's numbers: writeback thresholds, huge pages, the CPU
// frequency governor, the workers' cgroup limits, and the share of the
// run some task stalled for CPU, I/O or memory.
func envLine(m results.Meta) string {
	var parts []string
	if r, ok := m.Sysctls["vm.dirty_ratio"]; ok {
		parts = append(parts, fmt.Sprintf("dirty_ratio %s, dirty_background_ratio %s", r, m.Sysctls["vm.dirty_background_ratio"]))
	}
	if m.THP != "" {
		parts = append(parts, "THP "+m.THP)
	}
	if m.CPUFreq != "" {
		parts = append(parts, "cpufreq "+m.CPUFreq)
	}
	if c := m.Cgroup; c != nil {
		cg := "cgroup " + c.Path
		for _, l := range [][2]string{{"cpu.max", c.CPUMax}, {"io.max", c.IOMax}, {"memory.max", c.MemoryMax}} {
			if l[1] != "" && l[1] != "max" && l[1] != "max 100000" {
				cg += " " + l[0] + " " + l[1]
			}
		}
		parts = append(parts, cg)
	}
	var psi []string
	for _, p := range m.Pressure {
		if p.WallNs > 0 && p.SomeNs*100 >= p.WallNs {
			psi = append(psi, fmt.Sprintf("%s %s %s", p.Scope, p.Resource, share(p.SomeNs, p.WallNs)))
		}
	}
	if len(psi) > 0 {
		parts = append(parts, "stalled (PSI some) over the run: "+strings.Join(psi, ", "))
	}
	return strings.Join(parts, " · ")
}

// untracedWaitLine says how much of the untraced batches' time their
// workers waited for a CPU, when an arm's wait was 5% of its time or
// more: the ops/s carry it, the ratios leave it out (see
// results.RoundSample.Ratio).
func untracedWaitLine(run *results.Run) string {
	lo, hi := math.Inf(1), 0.0
	for i := range run.Arms {
		var wall, wait int64
		for _, b := range run.Arms[i].Batches {
			if !b.Traced && b.Measured() {
				wall += b.WallNs
				wait += b.RunQueueWaitNs
			}
		}
		if wall > 0 {
			f := float64(wait) / float64(wall)
			lo, hi = math.Min(lo, f), math.Max(hi, f)
		}
	}
	if hi < 0.05 {
		return ""
	}
	span := results.Share(hi)
	if results.Share(lo) != span {
		span = results.Share(lo) + "–" + span
	}
	return "run-queue wait of the untraced batches: " + span + " of each arm's time (its worker ready, waiting for a CPU): ops/s hold the share of a CPU each worker got, which moves between arms and runs; ratios pair the time each ran"
}

// neighbourLines name the other tasks that mattered during the traced
// batches: over the run, a CPU neighbour that took a tenth or more of a
// run-queue wait that was 1% or more of the traced time, up to three
// tasks that took a tenth or more of the device time of the work dirs'
// devices (the traced syscalls' and the neighbours'); then each case
// whose run-queue wait (5% or more of its traced time) a quarter or more
// of went to one neighbour.
func neighbourLines(run *results.Run) []string {
	type pool struct {
		wall, rq, dev uint64
		nbs           []results.Neighbour
	}
	add := func(p *pool, b *results.Batch) {
		p.wall += uint64(b.WallNs)
		p.rq += results.RunQueueNs(b)
		p.dev += results.DeviceNs(b)
		p.nbs = results.SumNeighbours(p.nbs, b.Neighbours)
	}
	var all pool
	var cases []string
	for i := range run.Arms {
		a := &run.Arms[i]
		var one pool
		for j := range a.Batches {
			if b := &a.Batches[j]; b.Traced && b.Measured() {
				add(&all, b)
				add(&one, b)
			}
		}
		if one.wall == 0 || one.rq*20 < one.wall {
			continue
		}
		base := results.WaitShareBase(one.rq, one.nbs)
		for _, n := range one.nbs {
			if n.Kind == results.NeighbourCPU && n.Ns*4 >= base {
				cases = append(cases, fmt.Sprintf("%s: %s took %s of its run-queue wait (%s of its traced time)",
					a.Named(), n.Name(), share(n.Ns, base), share(one.rq, one.wall)))
				break
			}
		}
	}
	var cpu, disk []string
	var diskNs uint64
	for _, n := range all.nbs {
		if n.Kind == results.NeighbourDisk {
			diskNs += n.Ns
		}
	}
	moreDisk := 0
	rqBase := results.WaitShareBase(all.rq, all.nbs)
	for _, n := range all.nbs {
		switch {
		case n.Kind == results.NeighbourCPU && atLeast(all.rq, explain.NeighbourWallMin, all.wall) && atLeast(n.Ns, explain.NeighbourShareMin, rqBase):
			cpu = append(cpu, fmt.Sprintf("%s took %s of the run-queue wait", n.Name(), share(n.Ns, rqBase)))
		case n.Kind == results.NeighbourDisk && atLeast(n.Ns, explain.NeighbourShareMin, all.dev+diskNs) && len(disk) < 3:
			disk = append(disk, fmt.Sprintf("%s %d requests, %s, %s of the device time", n.Name(), n.Count,
				results.Size(float64(n.Bytes)), share(n.Ns, all.dev+diskNs)))
		case n.Kind == results.NeighbourDisk:
			moreDisk++
		}
	}
	if moreDisk > 0 && len(disk) > 0 {
		disk = append(disk, fmt.Sprintf("%d more (run.json)", moreDisk))
	}
	var out []string
	if len(cpu)+len(disk) > 0 {
		var parts []string
		if len(cpu) > 0 {
			parts = append(parts, fmt.Sprintf("CPU (run-queue wait %.1f%% of the traced time): %s", 100*fraction(all.rq, all.wall), strings.Join(cpu, ", ")))
		}
		if len(disk) > 0 {
			parts = append(parts, "disk: "+strings.Join(disk, ", "))
		}
		out = append(out, "neighbours during the traced batches: "+strings.Join(parts, "; "))
	}
	if len(cases) > 5 {
		cases = append(cases[:5], fmt.Sprintf("%d more (run.json: batches' neighbours)", len(cases)-5))
	}
	return append(out, cases...)
}

// atLeast says part is at least the fraction min of whole (the diff's
// thresholds for naming a neighbour, explain.NeighbourShareMin and
// NeighbourWallMin, hold for the footer too).
func atLeast(part uint64, min float64, whole uint64) bool {
	return float64(part) >= min*float64(whole)
}

// share is part of whole, in results.Share's words; 0% of nothing.
func share(part, whole uint64) string { return results.Share(fraction(part, whole)) }

func fraction(part, whole uint64) float64 {
	if whole == 0 {
		return 0
	}
	return float64(part) / float64(whole)
}

// plural is one or many as n calls for: "1 op", "2 ops".
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
