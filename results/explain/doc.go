// Package explain splits a difference in wall time per op into its terms
// (each syscall class, with its off-CPU time and I/O stages, and user
// space) and says it in sentences: one engine, Decompose, for an arm
// against its lab's baseline in one run and for one arm across two runs.
package explain
