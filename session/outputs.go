//go:build linux

package session

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/term"

	"github.com/tmpprobe/tmpprobe/internal/atomicfile"
	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/internal/safefs"
	"github.com/tmpprobe/tmpprobe/push"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/render"
	"github.com/tmpprobe/tmpprobe/results/report"
	"github.com/tmpprobe/tmpprobe/results/runfile"
)

// Outputs are what a session writes besides its progress: the report
// (to Output, or stdout when it is "", in Format, its breakdowns in the
// order of Sort, its WHY short or full), the files --csv, --pprof and --benchfmt name, and the
// run directory --out names.
type Outputs struct {
	Output, Format, Sort, Why string
	CSV, Pprof, Benchfmt      string
	Out                       string
	Push                      string             // a Pushgateway's URL: the run's headline figures go there last
	Text                      render.TextOptions // Hist, Verbose, …: Width is set where the report goes

	// outHeld is what Out held when the measuring began (hold): a run
	// saved there since is another tmpprobe's.
	outHeld runfile.Held
}

// outputFile is one file output: its flag, path and writer.
type outputFile struct {
	flag, path string
	write      func(io.Writer) error
}

func (o *Outputs) files(run *results.Run, sums []*results.Summary) []outputFile {
	return []outputFile{
		{"--csv", o.CSV, func(w io.Writer) error { return render.WriteSyscallCSV(w, run, sums) }},
		{"--pprof", o.Pprof, func(w io.Writer) error { return render.WritePprof(w, run, sums) }},
		{"--benchfmt", o.Benchfmt, func(w io.Writer) error { return render.WriteBenchfmt(w, run, sums) }},
	}
}

// Check refuses, before the run, outputs it could not write: found after
// the run they would cost its results (exit 1); found now they are bad
// input. Two outputs that would replace the same file, or a file inside
// --out (which is replaced as a whole), are refused by their real paths,
// every symlink followed.
func (o *Outputs) Check() error {
	if err := CheckSort(o.Sort); err != nil {
		return err
	}
	if err := CheckWhy(o.Why); err != nil {
		return err
	}
	if _, ok := render.FormatNamed(o.Format, render.LiveFormat); !ok {
		return usagef("--format %q: want %s", o.Format, render.FormatNames(render.LiveFormat))
	}
	if o.Push != "" {
		if err := push.CheckURL(o.Push); err != nil {
			return usagef("--push %s: %s", o.Push, err)
		}
	}
	var outReal string
	if o.Out != "" {
		if err := runfile.CheckRunDir(o.Out); err != nil {
			return usagef("--out %s: %s", o.Out, err)
		}
		abs, _ := filepath.Abs(o.Out)
		outReal, _ = safefs.Resolve(abs, false)
	}
	taken := map[string]string{}
	// The report's -o is a file output too: -o F --csv F wrote the report,
	// then replaced it with the CSV, and exited 0.
	for _, f := range append([]outputFile{{flag: "-o", path: o.Output}}, o.files(nil, nil)...) {
		if f.path == "" {
			continue
		}
		if err := atomicfile.Check(f.path); err != nil {
			return usagef("%s %s: %s", f.flag, f.path, err)
		}
		real, err := atomicfile.ReplacedFile(f.path)
		switch {
		case err != nil:
			return usagef("%s %s: %s", f.flag, f.path, err)
		case real == "":
			continue // a stream or tmpprobe's own fd: nothing is replaced
		case outReal != "" && (real == outReal || strings.HasPrefix(real, outReal+"/")):
			return usagef("%s %s is --out %s or inside it, which is replaced as a whole", f.flag, f.path, o.Out)
		case taken[real] != "":
			return usagef("%s %s is the file %s writes too: give each output its own file", f.flag, f.path, taken[real])
		}
		taken[real] = f.flag
	}
	return nil
}

// CheckSort checks --sort: the breakdown's order, one of results.SortKeys.
func CheckSort(key string) error {
	if !slices.Contains(results.SortKeys, key) {
		return usagef("--sort %q: want %s", key, strings.Join(results.SortKeys, ", "))
	}
	return nil
}

// CheckWhy checks --why: short (each gap's answer and its largest terms)
// or full (every term).
func CheckWhy(why string) error {
	if why != "short" && why != "full" {
		return usagef("--why %q: want short or full", why)
	}
	return nil
}

// hold notes what --out holds as the measuring begins.
func (o *Outputs) hold() {
	if o.Out != "" {
		o.outHeld = runfile.HeldNow(o.Out)
	}
}

// report writes the report in Format (text at the width of where it
// goes) to stdout or -o FILE.
func (o *Outputs) report(stdout io.Writer, out *Outcome) error {
	f, _ := render.FormatNamed(o.Format, render.LiveFormat) // Check took it
	opts := o.Text
	opts.Sort = o.Sort
	opts.FullWhy = o.Why == "full"
	write := func(w io.Writer) error {
		opts.Width, _ = Width(w)
		// Buffered, so that a write that failed is not lost among the
		// writers' unchecked ones: bufio keeps the first error, and
		// Flush returns it.
		bw := bufio.NewWriter(w)
		if err := f.Report(bw, report.Input{Run: out.Run, Sums: out.Sums, Labs: out.Labs}, opts); err != nil {
			return err
		}
		return bw.Flush()
	}
	if o.Output == "" {
		// A closed pipe (| head) is EPIPE here, not a SIGPIPE death:
		// main has asked for SIGPIPE.
		if err := write(stdout); err != nil {
			return fmt.Errorf("the report could not be written to stdout (%s)", errtext.Bare(err))
		}
		return nil
	}
	if err := atomicfile.Write(o.Output, write); err != nil {
		return fmt.Errorf("the report could not be written to -o %s (%s)", o.Output, errtext.FirstLine(errtext.Bare(err)))
	}
	return nil
}

// save writes the run directory, then the file outputs that streams
// says are, or are not, streams (a device, a FIFO, tmpprobe's own
// stdout), returning what it saved and what failed. --out comes first:
// it holds everything, and everything else can be rebuilt from it.
func (o *Outputs) save(out *Outcome, streams bool, stderr io.Writer) (saved, failed []string) {
	if o.Out != "" && !streams {
		err := runfile.WriteRunDir(o.Out, o.outHeld, out.Whole(), runDirFiles(out))
		var aside *runfile.SavedAside
		switch {
		case errors.As(err, &aside):
			saved = append(saved, aside.Dir)
			if aside.Reason == runfile.KeptWhole {
				// Not a failure: the run ends with a status of its own.
				fmt.Fprintln(stderr, "tmpprobe: --out "+o.Out+": "+aside.Error())
			} else {
				failed = append(failed, "--out "+o.Out+": "+aside.Error())
			}
		case err != nil:
			failed = append(failed, "--out "+o.Out+": "+errtext.FirstLine(err.Error()))
		default:
			saved = append(saved, o.Out)
		}
	}
	for _, f := range o.files(out.Run, out.Sums) {
		if f.path == "" || isStream(f.path) != streams {
			continue
		}
		if err := atomicfile.Write(f.path, f.write); err != nil {
			failed = append(failed, "writing "+f.flag+" "+f.path+": "+errtext.FirstLine(err.Error()))
		} else {
			saved = append(saved, f.path)
		}
	}
	return saved, failed
}

// isStream says whether an output is written as a stream, after the
// report (where the report goes too, say), rather than a file replaced.
func isStream(path string) bool {
	real, err := atomicfile.ReplacedFile(path)
	return err == nil && real == ""
}

// finish saves a measured outcome, then reports it, then writes the
// outputs that are streams: a report that cannot be written (a full disk,
// a reader gone from the pipe) costs no file. An output that failed is an
// OutputError, which says what was saved.
func (o *Outputs) finish(stdout, stderr io.Writer, out *Outcome) error {
	saved, failed := o.save(out, false, stderr)
	if err := o.report(stdout, out); err != nil {
		failed = append([]string{err.Error()}, failed...)
	}
	s, f := o.save(out, true, stderr)
	saved, failed = append(saved, s...), append(failed, f...)
	// Last: the network, which can wait for a timeout, after every file.
	if o.Push != "" {
		if err := push.Run(context.Background(), o.Push, out.Run, out.Sums); err != nil {
			failed = append(failed, "--push "+o.Push+": "+errtext.FirstLine(err.Error()))
		}
	}
	if len(failed) == 0 {
		return nil
	}
	msg := strings.Join(failed, "; ")
	if len(saved) > 0 {
		msg += "; saved: " + strings.Join(saved, ", ")
	}
	return &OutputError{msg}
}

// runDirFiles are what --out saves: run.json first, the CSVs, report.md
// and, when something ran long enough to draw, the chart.
func runDirFiles(out *Outcome) []runfile.File {
	run, sums := out.Run, out.Sums
	files := []runfile.File{
		runfile.RunJSON(run, sums),
		{Name: "arms.csv", Write: func(w io.Writer) error { return render.WriteArmsCSV(w, sums) }},
		{Name: "syscalls.csv", Write: func(w io.Writer) error { return render.WriteSyscallCSV(w, run, sums) }},
		{Name: "report.md", Write: func(w io.Writer) error { render.WriteMarkdown(w, run, sums, out.Labs); return nil }},
	}
	if render.Chartable(sums) {
		for _, format := range []string{"svg", "png"} {
			files = append(files, runfile.File{Name: "chart." + format, Write: func(w io.Writer) error { return render.WriteChart(w, sums, format) }})
		}
	}
	return files
}

// Width is the width of w when it is a terminal, else the report's
// default width.
func Width(w io.Writer) (width int, tty bool) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return render.DefaultWidth, false
	}
	if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
		return cols, true
	}
	return render.DefaultWidth, true
}
