package runfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/internal/escape"
	"github.com/tmpprobe/tmpprobe/results"
)

// maxRunFile bounds what a reader takes in: a run of every arm with every
// histogram is a few MiB, so anything near this is not a run file.
const maxRunFile = 256 << 20

// WriteRunJSON writes run as run.json: indented, integer ns throughout.
func WriteRunJSON(w io.Writer, run *results.Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(run)
}

const notRegular = "not a regular file: a run is a directory, a run.json or a syscalls.csv"

// LoadRun reads a saved run from a run directory (its run.json, else its
// syscalls.csv), a run.json, or a syscalls.csv. Errors are one line and
// name the input.
func LoadRun(path string) (*results.Run, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", escape.Line(path), errtext.Bare(err))
	}
	if st.IsDir() {
		for _, name := range []string{"run.json", "syscalls.csv"} {
			p := filepath.Join(path, name)
			_, err := os.Stat(p)
			if err == nil {
				return LoadRun(p)
			}
			if !errors.Is(err, os.ErrNotExist) {
				// EACCES on a directory we cannot search is not "no run here".
				return nil, fmt.Errorf("%s: %s", escape.Line(p), errtext.Bare(err))
			}
		}
		return nil, fmt.Errorf("%s: no run.json or syscalls.csv in this directory", escape.Line(path))
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %s", escape.Line(path), notRegular)
	}
	// O_NONBLOCK: a FIFO swapped in after the Stat must not block the open;
	// the Fstat below refuses it.
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", escape.Line(path), err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if fst, err := f.Stat(); err != nil || !fst.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %s", escape.Line(path), notRegular)
	}
	run, err := ReadRun(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", escape.Line(path), err)
	}
	return run, nil
}

// ReadRun reads a run.json or a syscalls.csv, told apart by their first
// byte. It never panics; what it returns is safe to summarize and render.
func ReadRun(r io.Reader) (*results.Run, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxRunFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxRunFile {
		return nil, fmt.Errorf("larger than %d MiB: not a run file", maxRunFile>>20)
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	var run *results.Run
	kind := "run.json"
	switch {
	case len(trimmed) == 0:
		return nil, errors.New("empty file: not a run file")
	case trimmed[0] == '{':
		run, err = decodeRunJSON(trimmed)
	case bytes.HasPrefix(trimmed, []byte("lab,")):
		run, err = readSyscallCSV(bytes.NewReader(trimmed))
		kind = "syscalls.csv"
	default:
		return nil, errors.New("not a tmpprobe run.json or syscalls.csv")
	}
	if err != nil {
		return nil, err
	}
	results.NameRegions(run)
	run.Escape()
	if err := validate(run); err != nil {
		return nil, fmt.Errorf("corrupt %s: %w", kind, err)
	}
	return run, nil
}

func decodeRunJSON(data []byte) (*results.Run, error) {
	// Check identity and version before the body, so a future or foreign
	// file gets that answer rather than a field-type complaint.
	var head struct {
		Schema *int   `json:"schema"`
		Tool   string `json:"tool"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, jsonErr(err)
	}
	if head.Schema == nil || head.Tool != "tmpprobe" {
		return nil, errors.New("not a tmpprobe run.json (no tool/schema fields)")
	}
	if *head.Schema != results.Schema {
		return nil, fmt.Errorf("run.json schema %d, this tmpprobe reads schema %d", *head.Schema, results.Schema)
	}
	var run results.Run
	if err := json.Unmarshal(data, &run); err != nil {
		return nil, jsonErr(err)
	}
	return &run, nil
}

func jsonErr(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		if se.Offset > 0 && strings.Contains(se.Error(), "end of JSON") {
			return errors.New("truncated JSON: not a complete run.json")
		}
		return fmt.Errorf("corrupt JSON at byte %d: %s", se.Offset, se.Error())
	case errors.As(err, &te):
		return fmt.Errorf("corrupt run.json: field %s holds a %s", te.Field, te.Value)
	case strings.Contains(err.Error(), "end of JSON"):
		return errors.New("truncated JSON: not a complete run.json")
	}
	return fmt.Errorf("corrupt run.json: %s", errtext.FirstLine(err.Error()))
}

// maxThreads bounds how many threads' kernel time a trace sums in one
// batch: far above the 4096 threads the probe's map tracks at once.
const maxThreads = 1 << 16

// validate refuses what the arithmetic downstream cannot take (it would
// divide by zero ops, shift by a negative slot, or draw infinite bars) and
// values no run can have, which would otherwise print as normal numbers.
func validate(run *results.Run) error {
	if b := run.Derived.Between; b != nil {
		for i, c := range b.Cases {
			for field, v := range map[string]float64{"ratio_log_sd": c.Ratio, "ops_per_s_log_sd": c.OpsPerS} {
				if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("between_runs.cases[%d].%s %v: a spread is a standard deviation, 0 or more", i, field, v)
				}
			}
			if c.Runs < results.MinRunsBetween {
				return fmt.Errorf("between_runs.cases[%d].runs %d: a spread is measured over %d runs or more", i, c.Runs, results.MinRunsBetween)
			}
		}
	}
	stacks, err := validateStacks(run.Stacks)
	if err != nil {
		return err
	}
	for i := range run.Arms {
		a := &run.Arms[i]
		where := fmt.Sprintf("arm %d (%s/%s)", i+1, a.Lab, a.Arm)
		switch {
		case a.Lab == "" || a.Arm == "":
			return fmt.Errorf("arm %d has no lab or arm name", i+1)
		case a.Ops < 0 || a.Ops > 1e9 || a.Ops == 0 && len(a.Batches) > 0:
			// 0 is an arm that never ran a batch: it failed, or the run
			// was interrupted, before its first.
			return fmt.Errorf("%s: ops_per_batch %d", where, a.Ops)
		case a.PayloadBytes < 0 || a.SizeBytes < 0:
			return fmt.Errorf("%s: negative payload or size", where)
		}
		for j := range a.Batches {
			if err := validateBatch(a, &a.Batches[j], stacks); err != nil {
				return fmt.Errorf("%s batch %d: %w", where, j+1, err)
			}
		}
	}
	return nil
}

// maxBytesPerNs bounds the bytes one thread moves in a nanosecond: far
// above any memory's bandwidth (a few tens of bytes per ns per core).
const maxBytesPerNs = 1 << 10

// validateStacks refuses a stack of frames the run does not have; it
// returns how many stacks a batch's records can index.
func validateStacks(st *results.Stacks) (int, error) {
	if st == nil {
		return 0, nil
	}
	for i, stack := range st.Table {
		for _, f := range stack {
			if f < 0 || f >= len(st.Frames) {
				return 0, fmt.Errorf("stacks.table[%d]: frame %d of %d frames", i, f, len(st.Frames))
			}
		}
	}
	for i, f := range st.Frames {
		if f.Line < 0 {
			return 0, fmt.Errorf("stacks.frames[%d] (%s): line %d", i, f.Function, f.Line)
		}
	}
	return len(st.Table), nil
}

func validateBatch(a *results.ArmResult, b *results.Batch, stacks int) error {
	switch {
	case b.Ops < 0 || b.Ops > 1e9:
		return fmt.Errorf("ops %d: want 0..1000000000, as ops_per_batch", b.Ops)
	case b.Round < 0 || b.Round > len(a.Batches):
		// Rounds count from 1 and each has a batch of every arm it ran.
		return fmt.Errorf("round %d of an arm with %d batches", b.Round, len(a.Batches))
	case b.WallNs < 0:
		return fmt.Errorf("negative wall_ns %d", b.WallNs)
	case b.WallNs == 0:
		return errors.New("wall_ns 0: every batch takes time")
	case b.WallNs > maxBatchNs:
		return fmt.Errorf("wall_ns %d is beyond any run", b.WallNs)
	}
	wall := float64(b.WallNs)
	// Every thread takes at least a nanosecond per call, and the probe
	// tracks at most maxThreads of them.
	most := wall * maxThreads
	for _, r := range b.Records {
		for _, h := range r.Hist {
			if h.Slot < 0 || h.Slot >= results.HistSlots {
				return fmt.Errorf("%s histogram slot %d", r.Class, h.Slot)
			}
			if float64(h.Count) > most {
				return fmt.Errorf("%s %s: hist count %d in a batch of wall_ns %d", r.Class, r.Stage, h.Count, b.WallNs)
			}
		}
		for label, ns := range r.OffNs {
			if float64(ns) > most {
				return fmt.Errorf("%s %s: offcpu_by_label_ns %s %d in a batch of wall_ns %d", r.Class, r.Stage, label, ns, b.WallNs)
			}
		}
		switch {
		case float64(r.Calls) > most:
			return fmt.Errorf("%s %s: calls %d in a batch of wall_ns %d", r.Class, r.Stage, r.Calls, b.WallNs)
		case float64(r.Bytes) > most*maxBytesPerNs:
			return fmt.Errorf("%s %s: bytes %d in a batch of wall_ns %d", r.Class, r.Stage, r.Bytes, b.WallNs)
		case r.Errors > r.Calls:
			return fmt.Errorf("%s %s: %d errors in %d calls", r.Class, r.Stage, r.Errors, r.Calls)
		case float64(r.TotalNs) > wall*maxThreads || float64(r.OffCPUNs) > wall*maxThreads:
			return fmt.Errorf("%s %s: total_ns %d, offcpu_ns %d in a batch of wall_ns %d", r.Class, r.Stage, r.TotalNs, r.OffCPUNs, b.WallNs)
		}
	}
	for _, r := range b.Stacks {
		switch {
		case r.Class == "":
			return fmt.Errorf("stack %d: a stack record of no class", r.Stack)
		case r.Stack < 0 || r.Stack >= stacks:
			return fmt.Errorf("%s stack %d of the run's %d stacks", r.Class, r.Stack, stacks)
		case float64(r.Calls) > most || float64(r.Samples) > most:
			return fmt.Errorf("%s stack %d: %d calls, %d samples in a batch of wall_ns %d", r.Class, r.Stack, r.Calls, r.Samples, b.WallNs)
		case float64(r.Ns) > most || float64(r.OffCPUNs) > most:
			return fmt.Errorf("%s stack %d: ns %d, offcpu_ns %d in a batch of wall_ns %d", r.Class, r.Stack, r.Ns, r.OffCPUNs, b.WallNs)
		}
	}
	if !a.OfCommand() {
		return b.CheckOneThread(a.Ops)
	}
	return nil
}
