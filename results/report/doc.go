// Package report is what the report of a run says, once, whichever
// writer writes it: the Document. New fills it from a run, its summaries
// and the labs' knowledge (every sentence with what it answers, every
// cell of every table with the figure beneath, every footer line with
// its kind and, for a note, the typed note it words); render's text,
// markdown and JSON writers only lay it out, so they cannot disagree
// about what a report says. What a report should say differently (fewer
// words first and the rest on request, one spelling per figure, cells of
// one width, a key to its terms) is a change to how New fills the
// Document and how the writers lay out what it holds, not another writer.
package report
