// Package runfile keeps runs on disk: it reads run.json and syscalls.csv
// back into a run (refusing what no run can hold), and writes a run
// directory or an output file whole or not at all.
package runfile
