package render

import (
	"io"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/tmpprobe/tmpprobe/results"
)

// WriteBenchfmt writes a run in the Go benchmark format, one line per
// case and measured round: `benchstat old.txt new.txt` then compares two
// tmpprobe runs as it compares `go test -bench` output. The case is in the
// name keys (BenchmarkModes/arm=TemporaryFile/runtime=python/payload=400);
// the work dir, kernel and backend are file configuration, as they hold
// slashes or apply to every line. Each line has the round's ns/op and
// ops/s (and B/s in the buffers lab) of its headline batch, and its ratio to
// the lab's baseline in the same round.
func WriteBenchfmt(w io.Writer, run *results.Run, sums []*results.Summary) error {
	bw := benchfmt.NewWriter(w)
	for _, s := range sums {
		name := benchName(s.Lab) + "/arm=" + benchToken(s.Arm) + "/runtime=" + benchToken(s.Runtime) + "/" + s.Param()
		cfg := []benchfmt.Config{
			{Key: "dir", Value: []byte(s.Dir), File: true},
			{Key: "kernel", Value: []byte(run.Meta.KernelRelease), File: true},
			{Key: "backend", Value: []byte(run.Meta.Backend), File: true},
		}
		for _, r := range s.Rounds {
			ops := s.RoundOps(r.Round)
			v := r.Headline()
			if v <= 0 || ops == 0 {
				continue
			}
			// ns/op as go test writes it (the reader tidies it into sec/op).
			res := &benchfmt.Result{Config: cfg, Name: benchfmt.Name(name), Iters: ops, Values: []benchfmt.Value{
				{Value: 1 / v, Unit: "sec/op", OrigValue: 1e9 / v, OrigUnit: "ns/op"}, {Value: v, Unit: "ops/s"}}}
			if s.SizeBytes > 0 {
				// benchstat reads MB as 10^6 bytes and the labs' MiB/s are 2^20:
				// bytes per second, which benchstat scales itself.
				res.Values = append(res.Values, benchfmt.Value{Value: v * float64(s.SizeBytes), Unit: "B/s"})
			}
			if r.Ratio > 0 {
				res.Values = append(res.Values, benchfmt.Value{Value: r.Ratio, Unit: "ratio"})
			}
			if err := bw.Write(res); err != nil {
				return err
			}
		}
	}
	return nil
}

// benchName is the benchmark's base name: Benchmark + the lab, capitalized.
func benchName(lab string) string {
	if lab == "" {
		return "Run"
	}
	return strings.ToUpper(lab[:1]) + benchToken(lab[1:])
}

// benchToken keeps a name key's value one token: the format splits names
// at "/" and lines at blanks.
func benchToken(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '\t' || r == '\n' {
			return '_'
		}
		return r
	}, s)
}
