package results

// RunKind says what a run measured, and so how its figures read and what
// its report shows: the labs' arms, one traced program, or commands
// compared. It is set where the run is built (cmd today), never recovered
// from its arms' lab names, except once for files saved before it was
// recorded (KindOf).
type RunKind string

const (
	// KindLabs is a run of the labs' arms ('tmpprobe run', 'all'). It is
	// the zero value and run.json leaves it out, as every run.json saved
	// before kinds were recorded did.
	KindLabs RunKind = ""
	// KindTrace is what 'tmpprobe trace' recorded: one arm for the whole
	// target (one op = the whole run), then one per region it marked.
	KindTrace RunKind = "trace"
	// KindCompare is what 'tmpprobe compare' measured: one arm per
	// command, one op = one run of it, its ratios taken to the first.
	KindCompare RunKind = "compare"
)

// KindOf is the kind of a run saved before kinds were recorded, from the
// lab of its arms: trace and compare runs hold only arms of their own lab.
func KindOf(arms []ArmResult) RunKind {
	if len(arms) > 0 {
		switch arms[0].Lab {
		case LabTrace:
			return KindTrace
		case LabCompare:
			return KindCompare
		}
	}
	return KindLabs
}

// OfCommands reports whether the run measured a user's commands (trace or
// compare) rather than the labs' ops.
func (k RunKind) OfCommands() bool { return k != KindLabs }
