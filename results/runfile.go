package results

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
)

// maxRunFile bounds what a reader takes in: a run of every arm with every
// histogram is a few MiB, so anything near this is not a run file.
const maxRunFile = 256 << 20

// WriteRunJSON writes run as run.json: indented, integer ns throughout.
func WriteRunJSON(w io.Writer, run *Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(run)
}

// LoadRun reads a saved run from a run directory (its run.json, else its
// syscalls.csv), a run.json, or a syscalls.csv. Errors are one line and
// name the input.
func LoadRun(path string) (*Run, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", path, pathErrText(err))
	}
	if st.IsDir() {
		for _, name := range []string{"run.json", "syscalls.csv"} {
			p := filepath.Join(path, name)
			if _, err := os.Stat(p); err == nil {
				return LoadRun(p)
			}
		}
		return nil, fmt.Errorf("%s: no run.json or syscalls.csv in this directory", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", path, pathErrText(err))
	}
	defer f.Close()
	run, err := ReadRun(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return run, nil
}

// ReadRun reads a run.json or a syscalls.csv, told apart by their first
// byte. It never panics; what it returns is safe to summarize and render.
func ReadRun(r io.Reader) (*Run, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxRunFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxRunFile {
		return nil, fmt.Errorf("larger than %d MiB: not a run file", maxRunFile>>20)
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	switch {
	case len(trimmed) == 0:
		return nil, errors.New("empty file: not a run file")
	case trimmed[0] == '{':
		return decodeRunJSON(trimmed)
	case bytes.HasPrefix(trimmed, []byte("lab,")):
		return readSyscallCSV(bytes.NewReader(trimmed))
	}
	return nil, errors.New("not a tmpprobe run.json or syscalls.csv")
}

func decodeRunJSON(data []byte) (*Run, error) {
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
	if *head.Schema != Schema {
		return nil, fmt.Errorf("run.json schema %d, this tmpprobe reads schema %d", *head.Schema, Schema)
	}
	var run Run
	if err := json.Unmarshal(data, &run); err != nil {
		return nil, jsonErr(err)
	}
	if err := run.validate(); err != nil {
		return nil, err
	}
	for i := range run.Arms {
		run.Arms[i].Figures = nil // derived for other readers; recomputed from the batches
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
	return fmt.Errorf("corrupt run.json: %s", firstLine(err.Error()))
}

// validate refuses what the arithmetic downstream cannot take: it would
// divide by zero ops, shift by a negative slot, or draw infinite bars.
func (run *Run) validate() error {
	for i := range run.Arms {
		a := &run.Arms[i]
		where := fmt.Sprintf("arm %d (%s/%s)", i+1, a.Lab, a.Arm)
		switch {
		case a.Lab == "" || a.Arm == "":
			return fmt.Errorf("corrupt run.json: arm %d has no lab or arm name", i+1)
		case a.Ops < 1 || a.Ops > 1e9:
			return fmt.Errorf("corrupt run.json: %s: ops_per_batch %d", where, a.Ops)
		case a.PayloadBytes < 0 || a.SizeBytes < 0:
			return fmt.Errorf("corrupt run.json: %s: negative payload or size", where)
		}
		for j := range a.Batches {
			b := &a.Batches[j]
			if b.WallNs < 0 {
				return fmt.Errorf("corrupt run.json: %s batch %d: negative wall_ns", where, j+1)
			}
			for _, r := range b.Records {
				for _, h := range r.Hist {
					if h.Slot < 0 || h.Slot >= HistSlots {
						return fmt.Errorf("corrupt run.json: %s batch %d: %s histogram slot %d", where, j+1, r.Class, h.Slot)
					}
				}
			}
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func pathErrText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
