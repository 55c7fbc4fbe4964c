// Package push sends a finished run's headline figures to a Prometheus
// Pushgateway (--push), where a fleet's Prometheus scrapes them: per arm
// its throughput, its ratio to the baseline and TRACED, each with its
// interval's ends, and its work per op, grouped by host, lab, runtime,
// work dir and kernel. It writes no file and decides no figure: every
// value is the run's summary as the report prints it.
package push

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	pgpush "github.com/prometheus/client_golang/prometheus/push"

	"github.com/tmpprobe/tmpprobe/results"
)

// Job is the Pushgateway job every run is pushed under.
const Job = "tmpprobe"

// timeout bounds a push, connection to answer: a gateway that does not
// answer costs the run this long at most, after everything is saved.
const timeout = 10 * time.Second

// CheckURL refuses, before the run, a --push that names no Pushgateway.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("want a Pushgateway's address, http://HOST:PORT")
	}
	return nil
}

// RunID names a run among those pushed: when it started, in UTC to the
// nanosecond, as its run.json's "started" says it.
func RunID(run *results.Run) string { return run.Started.UTC().Format(time.RFC3339Nano) }

// group is the arms pushed together: a Pushgateway group is replaced
// whole by the next push of the same grouping labels, so each lab ×
// runtime × dir holds the last run's figures, and Prometheus the history.
type group struct {
	lab, runtime, dir string
	sums              []*results.Summary
}

// Run pushes the run's figures to the Pushgateway at gateway, one push a
// group; it stops at the first that fails.
func Run(ctx context.Context, gateway string, run *results.Run, sums []*results.Summary) error {
	host, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("the host's name: %w", err)
	}
	client := &http.Client{Timeout: timeout}
	for _, g := range groups(sums) {
		p := pgpush.New(gateway, Job).Client(client).Collector(figures(run, g.sums)).
			Grouping("host", host).Grouping("kernel", run.Meta.KernelRelease).
			Grouping("lab", g.lab).Grouping("runtime", g.runtime).Grouping("dir", g.dir)
		if err := p.PushContext(ctx); err != nil {
			return fmt.Errorf("pushing lab %s, runtime %s, dir %s: %w", g.lab, g.runtime, g.dir, err)
		}
	}
	return nil
}

// groups splits the arms by lab, runtime and dir, in the run's order.
func groups(sums []*results.Summary) []group {
	var out []group
	for _, s := range sums {
		i := slices.IndexFunc(out, func(g group) bool { return g.lab == s.Lab && g.runtime == s.Runtime && g.dir == s.Dir })
		if i < 0 {
			out = append(out, group{lab: s.Lab, runtime: s.Runtime, dir: s.Dir})
			i = len(out) - 1
		}
		out[i].sums = append(out[i].sums, s)
	}
	return out
}

// The series of a push, per arm (arm, and param: the payload or size).
var (
	armLabels   = []string{"arm", "param"}
	descOpsPerS = estimateDescs("tmpprobe_arm_ops_per_second",
		"The arm's throughput: the median over rounds of its untraced batches' ops/s (traced, where none ran untraced)", armLabels)
	descRatio = estimateDescs("tmpprobe_arm_ratio",
		"The arm's throughput ÷ its baseline arm's, paired per round: below 1 is slower", append(armLabels, "baseline"))
	descTraced = estimateDescs("tmpprobe_arm_traced_ratio",
		"TRACED: the arm's traced ÷ untraced ops/s, paired per round: what tracing cost it", armLabels)
	descWallPerOp = prometheus.NewDesc("tmpprobe_arm_traced_seconds_per_op",
		"Wall time per op of the traced batches, pooled: what the WHY decomposes", armLabels, nil)
	descWork = prometheus.NewDesc("tmpprobe_arm_work_per_op",
		"The work one op did, counted exactly (calls of a syscall, device requests by kind, journal commits, …)", append(armLabels, "work"), nil)
	descRunInfo = prometheus.NewDesc("tmpprobe_run_info",
		"The run the figures of this group come from: its id is when it started, as its run.json says", []string{"run_id", "kind", "complete"}, nil)
	descFinished = prometheus.NewDesc("tmpprobe_run_finished_timestamp_seconds",
		"When the run finished", nil, nil)
)

// estimateDescs are a figure's median and its 95% interval's ends.
func estimateDescs(name, help string, labels []string) [3]*prometheus.Desc {
	return [3]*prometheus.Desc{
		prometheus.NewDesc(name, help+" (median)", labels, nil),
		prometheus.NewDesc(name+"_lo", help+": the 95% interval's low end", labels, nil),
		prometheus.NewDesc(name+"_hi", help+": the 95% interval's high end", labels, nil),
	}
}

// figures is a group's series, as a collector the push gathers once.
func figures(run *results.Run, sums []*results.Summary) prometheus.Collector {
	var ms []prometheus.Metric
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ms = append(ms, prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...))
	}
	estimate := func(d [3]*prometheus.Desc, e results.Estimate, labels ...string) {
		if !e.Known() {
			return
		}
		gauge(d[0], e.Center, labels...)
		if e.Bounded() {
			gauge(d[1], e.Lo, labels...)
			gauge(d[2], e.Hi, labels...)
		}
	}
	for _, s := range sums {
		arm := []string{s.Arm, s.Param()}
		estimate(descOpsPerS, s.OpsPerS, arm...)
		if s.RatioTo != "" && s.RatioTo != s.Arm {
			estimate(descRatio, s.Ratio, append(arm, s.RatioTo)...)
		}
		estimate(descTraced, s.Observer, arm...)
		if s.Traced != nil && s.WallNsPerOp > 0 {
			gauge(descWallPerOp, s.WallNsPerOp/1e9, arm...)
		}
		for _, w := range slices.Sorted(maps.Keys(s.Work)) {
			gauge(descWork, s.Work[w], append(arm, w)...)
		}
	}
	gauge(descRunInfo, 1, RunID(run), kindName(run.Kind), fmt.Sprint(run.Complete))
	gauge(descFinished, float64(run.Finished.UnixNano())/1e9)
	return constCollector(ms)
}

// kindName is the run's kind as run.json names it, labs for the zero one.
func kindName(k results.RunKind) string {
	if k == results.KindLabs {
		return "labs"
	}
	return strings.ToLower(string(k))
}

// constCollector serves metrics made once.
type constCollector []prometheus.Metric

func (c constCollector) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(c, ch) }

func (c constCollector) Collect(ch chan<- prometheus.Metric) {
	for _, m := range c {
		ch <- m
	}
}
