package runfile

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/results"
)

// record is the class record a syscalls.csv row holds.
func (row *csvRow) record() results.ClassRecord {
	rec := results.ClassRecord{
		Class: row.str("syscall"), Stage: row.str("stage"),
		Calls: uint64(row.int("calls", math.MaxInt64)), Errors: uint64(row.int("errors", math.MaxInt64)),
		TotalNs: uint64(row.int("kernel_ns", math.MaxInt64)), OffCPUNs: uint64(row.int("offcpu_ns", math.MaxInt64)),
		Bytes:     uint64(row.int("bytes", math.MaxInt64)),
		Quantiles: []uint64{uint64(row.int("p50_ns", math.MaxInt64)), uint64(row.int("p95_ns", math.MaxInt64)), uint64(row.int("p99_ns", math.MaxInt64))},
	}
	for _, l := range results.OffLabels {
		if v := uint64(row.int(results.OffLabelColumn(l), math.MaxInt64)); v > 0 {
			if rec.OffNs == nil {
				rec.OffNs = map[string]uint64{}
			}
			rec.OffNs[l] = v
		}
	}
	return rec
}

// batches gives a's first row its untraced and traced batch, from the
// row's rates, and returns the figures the row records.
func (row *csvRow) batches(a *results.ArmResult) (*results.Figures, error) {
	opsPerS, wallPerOp := row.float("ops_per_s"), row.float("wall_ns_per_op")
	// Files before rounds had no traced_ops: their rows were one batch
	// of ops.
	tracedOps := int(row.int("traced_ops", 1e12))
	if tracedOps == 0 {
		tracedOps = a.Ops
	}
	// The traced batches' wall time from their rate, which the file
	// keeps to every digit, rather than from the rounded wall_ns_per_op:
	// the rebuilt run then writes the same file.
	untraced, traced := wallFor(a.Ops, opsPerS), wallPerOp*float64(tracedOps)
	if tr := row.float("traced_ops_per_s"); tr > 0 {
		traced = float64(tracedOps) / tr * 1e9
	}
	figures := csvFigures(row)
	if row.err != nil {
		return figures, row.err
	}
	if untraced < 0 || traced > maxBatchNs {
		return figures, fmt.Errorf("line %d: ops_per_s or wall_ns_per_op out of range", row.line)
	}
	a.Batches = []results.Batch{{Round: 1, Ops: a.Ops, WallNs: untraced},
		{Round: 1, Ops: tracedOps, Traced: true, WallNs: int64(math.Round(traced))}}
	return figures, nil
}

// readSyscallCSV rebuilds a run from the syscall breakdown CSV: per arm one
// untraced batch at the headline ops/s and one traced batch with the
// records. Columns are found by name, so files with added columns read.
func readSyscallCSV(r io.Reader) (*results.Run, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, csvErr(err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, need := range results.SyscallColumnsRequired {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("not a tmpprobe syscalls.csv: no %q column", need)
		}
	}
	run := &results.Run{Schema: results.Schema, Tool: "tmpprobe", Complete: true, Source: results.SourceCSV}
	index := map[results.CaseID]int{}
	// Files written before the rows column read as before, unchecked: a
	// baseline kept from an older tmpprobe must still diff.
	_, counted := col[results.RowsColumn]
	want, rows := int64(-1), int64(0)
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			if counted && rows > 0 && rows != want {
				return nil, fmt.Errorf("truncated CSV: %d of its %d rows", rows, want)
			}
			break
		}
		if err != nil {
			return nil, csvErr(err)
		}
		row := csvRow{rec: rec, col: col, line: line}
		rows++
		if counted {
			n := row.int(results.RowsColumn, math.MaxInt64)
			if row.err == nil && want >= 0 && n != want {
				row.err = fmt.Errorf("line %d: rows %d, earlier rows say %d", line, n, want)
			}
			want = n
		}
		a := results.ArmResult{
			// A payload or size past 1 TiB is corrupt.
			CaseID: results.ReadCase(row.str, func(name string) int64 { return row.int(name, 1<<40) }),
			Ops:    int(row.int("ops", 1e9)),
		}
		if row.err == nil && (a.Lab == "" || a.Arm == "" || a.Ops < 1) {
			row.err = fmt.Errorf("line %d: empty lab or arm, or ops < 1", line)
		}
		rec2 := row.record()
		if row.err != nil {
			return nil, row.err
		}
		if _, ok := col["backend"]; ok && run.Meta.Backend == "" {
			run.Meta.Backend = row.str("backend")
		}
		if _, ok := col["kernel_release"]; ok && run.Meta.KernelRelease == "" {
			run.Meta.KernelRelease = row.str("kernel_release")
		}
		i, ok := index[a.CaseID]
		if !ok {
			i = len(run.Arms)
			index[a.CaseID] = i
			figures, err := row.batches(&a)
			if err != nil {
				return nil, err
			}
			run.Arms = append(run.Arms, a)
			run.Derived.Figures = append(run.Derived.Figures, figures)
		}
		if row.str("stack") != "" {
			if err := row.code(run, i); err != nil {
				return nil, err
			}
			continue
		}
		if rec2.Class != "" { // "": the row of an arm that made no syscall
			traced := &run.Arms[i].Batches[1]
			traced.Records = append(traced.Records, rec2)
			if f := run.Derived.Figures[i]; f != nil && f.Times != nil {
				f.Times.Rows[results.RowKey{Class: rec2.Class, Stage: rec2.Stage}] = results.RowTime{
					Ns: row.float("kernel_ns_per_op"), OffNs: row.float("offcpu_ns_per_op")}
			}
		}
	}
	if len(run.Arms) == 0 {
		return nil, errors.New("syscalls.csv has no rows")
	}
	run.Kind = results.KindOf(run.Arms) // a syscalls.csv does not say
	return run, nil
}

// code reads a row of where in the code arm i's time went (a function's
// or a call site's, results.CodeRows) back into the run's stacks, the
// traced batch's stack records and the figures the row records.
func (row *csvRow) code(run *results.Run, i int) error {
	var frames []results.Frame
	if err := json.Unmarshal([]byte(row.str("stack")), &frames); err != nil || len(frames) == 0 {
		return fmt.Errorf("line %d: stack %q is not a list of frames", row.line, row.str("stack"))
	}
	if run.Stacks == nil {
		run.Stacks = &results.Stacks{Every: uint32(row.int("stack_every", math.MaxUint32)),
			TailNs: uint64(row.int("stack_tail_ns", math.MaxInt64)), SamplePeriodNs: uint64(row.int("sample_period_ns", math.MaxInt64))}
	}
	st := run.Stacks
	var stack results.Stack
	for _, f := range frames {
		j := slices.Index(st.Frames, f)
		if j < 0 {
			j = len(st.Frames)
			st.Frames = append(st.Frames, f)
		}
		stack = append(stack, j)
	}
	at := slices.IndexFunc(st.Table, func(s results.Stack) bool { return slices.Equal(s, stack) })
	if at < 0 {
		at = len(st.Table)
		st.Table = append(st.Table, stack)
	}
	rec := results.StackRecord{Class: row.str("syscall"), Stack: at, Samples: uint64(row.int("samples", math.MaxInt64)),
		Calls: uint64(row.int("calls", math.MaxInt64)), Ns: uint64(row.int("kernel_ns", math.MaxInt64)),
		OffCPUNs: uint64(row.int("offcpu_ns", math.MaxInt64))}
	if row.err != nil {
		return row.err
	}
	if rec.Class == "" {
		return fmt.Errorf("line %d: a stack with no syscall", row.line)
	}
	traced := &run.Arms[i].Batches[1]
	traced.Stacks = append(traced.Stacks, rec)
	t := run.Derived.Figures[i]
	if t == nil || t.Times == nil {
		return nil
	}
	times := t.Times
	if rec.Class == results.ClassUser {
		if times.Functions == nil {
			times.Functions = map[results.FuncKey]float64{}
		}
		times.Functions[results.FuncKey{Function: frames[0].Function, File: frames[0].File}] = row.float("kernel_ns_per_op")
	} else {
		if times.Sites == nil {
			times.Sites = map[results.SiteKey]results.SiteTime{}
		}
		times.Sites[results.SiteKey{Class: rec.Class, Stack: at}] = results.SiteTime{Calls: row.float("calls_per_op"),
			Ns: row.float("kernel_ns_per_op"), OffNs: row.float("offcpu_ns_per_op")}
	}
	return row.err
}

// csvFigures reads an arm's headline figures back as the file wrote them;
// nil for files before rounds, which had none but ops_per_s.
func csvFigures(row *csvRow) *results.Figures {
	if _, ok := row.col["rounds"]; !ok {
		return nil
	}
	rounds := int(row.int("rounds", 1e6))
	est := func(name string) *results.Estimate {
		if row.str(name) == "" {
			return nil
		}
		e := results.Estimate{Center: row.float(name), Lo: math.NaN(), Hi: math.NaN(), N: rounds}
		if rounds < results.MinRoundsForCI {
			e.Lo, e.Hi = math.Inf(-1), math.Inf(1)
		}
		if row.str(name+"_lo") != "" && row.str(name+"_hi") != "" {
			e.Lo, e.Hi = row.float(name+"_lo"), row.float(name+"_hi")
		}
		return &e
	}
	f := &results.Figures{Rounds: rounds, Ratio: est("ratio"), Observer: est("observer")}
	if e := est("ops_per_s"); e != nil {
		f.OpsPerS = *e
	}
	// Since #42 the per-op times are medians over the traced rounds,
	// which the file's sums cannot give back: they are taken as written.
	if _, ok := row.col["runqueue_ns_per_op"]; ok {
		f.Times = &results.RecordedTimes{WallNs: row.float("wall_ns_per_op"), KernelNs: row.float("syscalls_ns_per_op"),
			UserNs: row.float("user_ns_per_op"), RunQueueNs: row.float("runqueue_ns_per_op"), Rows: map[results.RowKey]results.RowTime{}}
		f.Times.BetweenNs = row.float("offcpu_between_ns_per_op")
		f.Times.UnsampledNs = row.float("unnamed_ns_per_op")
		if row.str("user_ns_per_op") == "" {
			f.Times.UserNs = -1 // not known: threads' syscalls summed past the wall time
		}
	}
	return f
}

// maxBatchNs is far above any real batch (115 days) and far below where
// int64 ns overflow.
const maxBatchNs = 1e16

// wallFor is the batch wall time that gives opsPerS, or -1 when it is out
// of range.
func wallFor(ops int, opsPerS float64) int64 {
	if opsPerS <= 0 {
		return 0
	}
	ns := float64(ops) / opsPerS * 1e9
	if ns > maxBatchNs {
		return -1
	}
	return int64(math.Round(ns))
}

// csvRow reads typed cells, keeping the first error so a row is checked
// in one place.
type csvRow struct {
	rec  []string
	col  map[string]int
	line int
	err  error
}

func (r *csvRow) str(name string) string {
	i, ok := r.col[name]
	if !ok || i >= len(r.rec) {
		return ""
	}
	return r.rec[i]
}

func (r *csvRow) int(name string, max int64) int64 {
	s := r.str(name)
	if s == "" {
		return 0
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if (err != nil || v < 0 || v > max) && r.err == nil {
		r.err = fmt.Errorf("line %d: %s %q is not a count", r.line, name, s)
	}
	return v
}

func (r *csvRow) float(name string) float64 {
	s := r.str(name)
	if s == "" {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	// Per-op figures above a day are corrupt, and would overflow int64
	// nanoseconds once multiplied by the ops of a batch.
	if (err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1e14) && r.err == nil {
		r.err = fmt.Errorf("line %d: %s %q is not a number", r.line, name, s)
	}
	return v
}

func csvErr(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("corrupt CSV at line %d: %s", pe.Line, pe.Err)
	}
	return fmt.Errorf("corrupt CSV: %s", errtext.FirstLine(err.Error()))
}
