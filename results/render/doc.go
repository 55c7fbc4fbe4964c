// Package render writes runs, traces and diffs for people and tools: the
// terminal report, markdown, JSON, the CSV files, the chart, pprof
// profiles and benchstat's format.
package render
