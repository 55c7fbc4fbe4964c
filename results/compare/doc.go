// Package compare lines up saved runs arm by arm and judges, from their
// rounds, what changed between them (and the facts that differ, which can
// explain every change at once): two runs as a diff, more as a matrix.
package compare
