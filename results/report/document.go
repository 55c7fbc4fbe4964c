package report

import (
	"time"

	"github.com/tmpprobe/tmpprobe/results"
)

// Document is the report of one run: its head, its groups (each a table,
// its WHY and its arms' breakdowns), where the labs' spilling buffers
// rolled over, the failed arms and the footer.
type Document struct {
	Kind results.RunKind
	Head Head
	// Heading heads a compare report's table ("compare · 2 commands · …").
	Heading string
	// Groups are the peer groups (lab × runtime × dir × parameter), in the
	// order their first arm ran.
	Groups []*Group
	// Arms are every arm, in run order: the groups hold the same arms.
	Arms     []*Arm
	Spills   []Sentence
	Failures []Failure
	Footer   []FooterLine
}

// Head is what the report says of the run as a whole before any group,
// and what machines read beside the figures.
type Head struct {
	Schema   int
	Started  time.Time
	Protocol results.Protocol
	Complete bool
	Args     []string
	Meta     results.Meta
	Warnings []string
	Drops    map[string]uint64
	Between  *results.BetweenRuns
}

// Group is one peer group: the arms a lab compares with one another.
type Group struct {
	Title string
	// Rate and Unit name the table's headline figure and its op: "ops/s"
	// and "op", "MiB/s" and "round" (the buffers lab), "wall" and "run"
	// (commands); Ratio the throughput its ratios divide ("ops/s",
	// "MiB/s", "runs/s"). Scale is the unit of the group's times.
	Rate, Unit, Ratio string
	Scale             results.TimeScale
	// Base is the arm every ratio of the group is taken to: the lab's
	// baseline, the first command.
	Base string
	Rows []Row
	// Observer says in one line what tracing cost the group's arms:
	// traced ÷ untraced throughput, its range over the arms.
	Observer string
	// Verdicts are a compare run's answers: each command against the
	// first.
	Verdicts []Sentence
	// Why are the sentences of the gaps compared in the group (the
	// headline ones first) and of the arms whose ratio moved with a state
	// of the run; the terminal says a gap's Short by default, and a
	// state link only when asked for the whole WHY.
	Why  []Sentence
	Arms []*Arm
	// Explained is whether the group has breakdowns: an arm of it was
	// traced.
	Explained bool
}

// Row is one arm's line of its group's table: the cells as the tables
// print them, with the figures beneath.
type Row struct {
	Arm string
	// Failed is the first line of the error of an arm that failed before
	// it had a figure: its row says only that.
	Failed string
	// Late is the first line of the error of an arm that failed after
	// Rounds rounds: its row has figures, and a line below says so.
	Late   string
	Rounds int
	// Head is the headline figure: ops/s, MiB/s (the buffers lab), or the
	// wall time of a run (commands).
	Head Cell
	// Ratio is the throughput ÷ the group's Base's, paired per round.
	Ratio Cell
	// PerOp is the time of an untraced op, from the rounds Head comes
	// from: the two multiply (µs/op × ops/s = 1e6).
	PerOp Cell
	// Wall, Kernel and User are µs per op of the traced batches, pooled:
	// what the breakdown and WHY divide, not the table's PerOp.
	Wall, Kernel, User Cell
	// Traced is what tracing cost: traced ÷ untraced ops/s (a command's
	// time traced ÷ untraced).
	Traced Cell
}

// Cell is one figure as the tables print it. Short is the terminal's
// cell (the interval as a ± percentage: "13254 ±54%"), Long report.md's
// ("13254"; a ratio with its interval, "0.70 [0.63–0.77]"), and Bounds
// report.md's interval column where it has one ("11111–12658").
type Cell struct {
	Value               results.Estimate
	Short, Long, Bounds string
}

// Arm is one arm: its figures for machines, and what the report says of
// it (its sentence and its breakdown).
type Arm struct {
	results.CaseID
	Ops   int
	Error string
	// Figures are the headline figures with their intervals, and the
	// per-op times of the traced batches (ns).
	Figures results.Figures
	// TimePerOp is the untraced time per op (ns), the table's µs/op:
	// 1e9 ÷ the headline ops/s, its interval inverted.
	TimePerOp                results.Estimate
	TracedOpsPerS            float64
	WallNs, KernelNs, UserNs float64
	// UserMeasured says UserNs is the threads' measured on-CPU time
	// outside syscalls, and BetweenNs their time off the CPU there that
	// was no wait for a CPU; else UserNs is what the syscalls leave of
	// the wall time (runs before #39).
	UserMeasured bool
	BetweenNs    float64
	Traced       bool
	Unit         string // what one op is: op, round, run, entry
	Scale        results.TimeScale
	// Classes are the arm's syscalls and stages per op, as summarized.
	Classes []results.ClassSummary
	// Heading heads a trace's arm: what was traced and for how long.
	Heading string
	// Split is "arm: wall = kernel + user" per op; Sentence the arm's
	// sentence, which starts with it: where its time goes.
	Split    string
	Sentence Sentence
	// Breakdown are the rows of the arm's syscall table, in the order
	// and under the filter the report was asked for.
	Breakdown []results.ClassSummary
	// Code says where in the code the arm's time went (#39): user space
	// by function, then each syscall of Breakdown by the stacks its
	// calls came from, a sentence each (SentenceCode), its Short what
	// the terminal says by default. Functions and Sites are the figures
	// beneath them.
	Code      []Sentence
	Functions []results.FunctionSummary
	Sites     []results.SiteSummary
	// NotSampledNs is the measured user time per op no sample stood for.
	NotSampledNs float64
	// Hist are the log2 latency histograms of its syscalls, on request.
	Hist *Hist
}

// Hist is an arm's latency histograms: a title, and a histogram per
// syscall class.
type Hist struct {
	Title   string
	Classes []results.ClassRecord
}

// SentenceKind says what a sentence answers.
type SentenceKind string

const (
	SentenceHeadline  SentenceKind = "headline gap" // the gap of a pair the lab exists to answer
	SentenceGap       SentenceKind = "gap"          // the gap of any other pair compared
	SentenceStateLink SentenceKind = "state link"   // a ratio that moved with a state across the run
	SentenceArm       SentenceKind = "arm"          // where one arm's time goes
	SentenceVerdict   SentenceKind = "verdict"      // a compared command against the first
	SentenceSpill     SentenceKind = "spill"        // where a spooled buffer rolled over to a file
	SentenceCode      SentenceKind = "code"         // where in the code an arm's time went
)

// Sentence is one sentence of the report, with what it answers. Text is
// the whole of it (report.md, JSON, --why full); Short, where there is
// one, what the terminal says by default: the answer, at most four lines
// at 80 columns (ShortLines).
type Sentence struct {
	Kind  SentenceKind `json:"kind"`
	Text  string       `json:"text"`
	Short string       `json:"short,omitempty"`
}

// ShortLines and ShortWidth bound a WHY sentence's Short: four lines of
// a bullet at 80 columns.
const (
	ShortLines = 4
	ShortWidth = 80
)

// Failure is an arm that failed: what, where, after how much, and the
// tail of its worker's stderr.
type Failure struct {
	Head string   `json:"head"`
	Tail []string `json:"stderr_tail,omitempty"`
}

// FooterKind says what a footer line is.
type FooterKind string

const (
	FooterFact    FooterKind = "fact"    // how the numbers were taken
	FooterWarning FooterKind = "warning" // what changes what they mean
	FooterNote    FooterKind = "note"    // what no figure shows
)

// FooterLine is one line of the footer.
type FooterLine struct {
	Kind FooterKind `json:"kind"`
	Text string     `json:"text"`
	// Note is the note the line words, as the run recorded it; nil for a
	// line the report derives.
	Note *results.Note `json:"note,omitempty"`
	// Repeated is a note every run on this machine repeats (why a backend
	// was skipped): the terminal shows it on request only.
	Repeated bool `json:"repeated,omitempty"`
}
