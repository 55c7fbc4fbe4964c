package report

// Term is a term of art a report uses, with what it means: the key
// 'tmpprobe help terms' prints and the footer points to.
type Term struct{ Name, Meaning string }

// Terms are the report's terms of art, in the order a report shows them.
var Terms = []Term{
	{"ops/s ±95%", "the median, over the rounds, of the untraced batches' ops per second (MiB/s in the buffers lab: round trips × size), ± the wider side of its 95% interval, as benchstat prints it. ±>99%: wider than the figure (report.md has the bounds). ±∞: too few worker generations (under 6) for an interval."},
	{"[lo–hi]", "the 95% confidence interval of a median, from order statistics over worker generations (benchstat's method). Once two earlier runs like it are saved beside a run, it is instead the interval that holds the next run's median: a 95% prediction interval around the runs' mean, from their spread pooled over the arms that spread alike, on the degrees of freedom the footer gives; measured to hold the next run 80% of the time or more."},
	{"ops/s ÷ BASE", "a ratio: an arm's throughput ÷ its baseline's (the lab's TemporaryFile or BytesIO, a compare's first command), paired round by round. Every ratio tmpprobe prints is of throughput: below 1 is slower. A lab's is of the time each worker was not waiting for a CPU (its wall time less its run-queue wait, read from the kernel around each batch): beside CPU hogs each worker got its own share of a CPU, and the ops/s carry it; with no neighbour it is the ops/s' ratio. ×BASE heads the column when the name does not fit."},
	{"µs/op", "1e6 ÷ the ops/s beside it: the untraced time of one op. \"µs/op traced\" (BREAKDOWN, WHY) is the median over the rounds of the traced batches' time per op, as ops/s is of the untraced ones: about µs/op ÷ TRACED. Every time per op in BREAKDOWN and WHY (a syscall's, user space's, a gap and its terms) is such a median; medians of parts need not add up to the median of the whole, and what they leave is said as the remainder."},
	{"TRACED", "traced ÷ untraced throughput, the median of the rounds': what tracing cost (the observer effect); 1.00 is free. A lab takes its stacks (call sites, user time by function) in traced batches of their own, the odd rounds': TRACED and the syscall terms are of the others, and \"with stacks\" after it is what the stack batches cost."},
	{"worker generations", "the worker processes of a run: each serves a few rounds (--worker-rounds), then a fresh one takes over. An interval counts generations, not rounds, as rounds of one process are not independent."},
	{"user space", "the threads' time on a CPU outside syscalls, as the scheduler's events measure it: the program's own code (for Python, the interpreter running tempfile's code) and its page faults. Runs saved before it was measured (their CSVs have no offcpu_between_ns_per_op) keep what they printed: wall time minus the time inside syscalls and the run-queue wait between them."},
	{"off-CPU between calls", "time the threads were off the CPU outside syscalls for anything but a CPU (a major page fault, a wait between calls): a term of its own beside user space, which is on-CPU time."},
	{"threads ran at once", "a program's threads' times (syscalls, user space, waits) add up past its wall time: they are said summed over the threads, beside the wall time, not as its parts."},
	{"functions", "user space split by the Python (or native) function the sampler found running: each sample goes to the innermost Python frame's function (its self time, never its callers'), named with the line it spent most of its time on. Each is user space's median over the traced rounds times the function's share of the samples (exact counts, as off-CPU time is split by label); \"unnamed\" are the samples no frame could be read for, \"other functions\" those not listed."},
	{"call sites", "\"fsync 127 ms: 100% from persist (app.py:4) ← main (app.py:10)\": the stacks a syscall class's calls were made from, leaf first, with their shares of its calls, time and off-CPU time (medians over the traced rounds of the class's row split by the sampled calls' shares); the footer says which calls had their stacks taken."},
	{"off-CPU", "time a thread did not run while inside a syscall (or, under user space, between them), by what it waited for."},
	{"run-queue wait", "runnable but not running: another task had the CPU (\"preempted\"). A term of its own in BREAKDOWN and WHY, inside syscalls and between them, never a syscall's or user space's reason: what CPU neighbours cost."},
	{"remainder", "the wall time no term accounts for: per round, what the syscalls, user space, the run-queue wait and the off-CPU time between calls leave of it (negative where threads ran at once), and what the medians of a gap's terms leave of the median of the gap (or of an arm's time): medians do not add; shown, never spread over the terms."},
	{"slowest calls", "\"its slowest 4% of calls (2.05 ms or more) took at least 61% of its time\": a few calls carry much of a syscall's time, so its median per op and its mean differ; at least, as the histogram counts each call at its slot's low edge."},
	{"woken from irq", "blocked until a device's interrupt woke it: it waited for the device (\"waits for the device\")."},
	{"woken by a kworker", "blocked until a kernel worker woke it, as writeback or a flush does (\"waits for writeback\")."},
	{"journal commit", "ext4's journal (jbd2) writing a transaction; a thread that waits for it \"waits for the journal\"."},
	{"new, no longer made", "a syscall one arm makes and the other never: a difference in kind, never noise."},
	{"A vs B", "two variants of one syscall (openat[create] vs openat[tmpfile]) that the two sides make instead of each other, as one term."},
	{"frees the inode", "ext4 evicts and frees the file's inode inside this syscall: the unlink of a closed file, the last close of an unlinked one."},
	{"within noise", "a term whose per-round differences the rounds cannot tell from zero (the 95% interval of their median holds 0); -v and report.md name them. When two throughputs are no different and neither side makes a syscall the other does not, no term is named at all: one of dozens tested would stand out by chance."},
	{"terms that cancel", "terms pulling both ways that mostly cancel: no share of the total is given, as shares of a small sum would mislead."},
	{"> stage", "what happened inside the syscall above: device requests, journal commits, inode allocation. ⋯ stage: the device was busy while the thread was inside, but this syscall cannot wait for it."},
	{"(syscall)", "waiting for a child that compare or trace also follows: the child's time is counted as its own, so this row is in no sum."},
	{"discard", "a request telling the device it may forget freed blocks (the discard mount option issues them inside unlink or close)."},
	{"cache flush, FUA", "requests that make the device's volatile write cache durable: a flush writes all of it, FUA (force unit access) one write through it."},
	{"wbt", "the block layer's writeback throttling, with its target latency in µs (/sys/block/*/queue/wbt_lat_usec)."},
	{"PSI", "pressure stall information (/proc/pressure): the share of the run some task stalled waiting for CPU, I/O or memory."},
	{"spread between runs", "how far the medians of runs like this one, saved side by side (--out runs/NAME), move from run to run, pooled over the arms of a group whose spreads an F test cannot tell apart (the degrees of freedom: the pooled arms' runs less one each, summed); the intervals include it once two earlier runs are there, and diff tests a change against it."},
	{"needs ≈N rounds", "a \"no different\" that cannot rule out a change of the minimum effect: about how many rounds would tell a change of the minimum effect (5%) from none nine times in ten, from the rounds' spread (the median absolute deviation of their ratios, untraced and traced)."},
}

// termsLine is the footer's pointer to the key.
const termsLine = "tmpprobe help terms says what TRACED, ±∞, worker generations, run-queue wait and the WHY's other words mean"
