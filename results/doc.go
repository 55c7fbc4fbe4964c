// Package results is tmpprobe's data model and its arithmetic: a run as
// measured (arms, batches, the kernel's records), and the per-op figures,
// medians and comparisons derived from it, with the units they print in.
// It knows nothing of BPF, prose or files: explain, compare, render and
// runfile below it do those.
package results
