// Package report is what the report of a run says, once, whichever
// writer writes it: the Document. New fills it from a run, its summaries
// and the labs' knowledge (every sentence, every cell of every table,
// every footer line); render's text, markdown and JSON writers only lay
// it out, so they cannot disagree about what a report says.
package report
