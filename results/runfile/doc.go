// Package runfile keeps runs on disk: it reads run.json and syscalls.csv
// back into a run (refusing what no run can hold), reads the earlier runs
// saved beside a new one, and writes a run directory whole or not at all
// from the files its caller hands it. It knows the run and no report:
// the report files a saved run holds are render's.
package runfile
