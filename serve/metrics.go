//go:build linux

package serve

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/results"
)

// The metric families /metrics serves: the probe's running totals for
// the followed target, every phase summed (a region's calls are the
// target's too), read when the scrape comes. Names and units follow
// Prometheus' conventions: a _total counter, seconds as the base unit.
var (
	descCalls = prometheus.NewDesc("tmpprobe_syscall_calls_total",
		"Calls the target made, by syscall (exact: the probe counts every call).", []string{"syscall"}, nil)
	descErrors = prometheus.NewDesc("tmpprobe_syscall_errors_total",
		"Calls that returned an error, by syscall.", []string{"syscall"}, nil)
	descDuration = prometheus.NewDesc("tmpprobe_syscall_duration_seconds",
		"Time of single calls, by syscall; each bucket bound is the last nanosecond of a power of two, as the probe's slots end there.", []string{"syscall"}, nil)
	descOffCPU = prometheus.NewDesc("tmpprobe_offcpu_seconds_total",
		"Time off the CPU inside a syscall (syscall=\"user\": between syscalls), by how the thread left it and who woke it.", []string{"syscall", "reason"}, nil)
	descDevRequests = prometheus.NewDesc("tmpprobe_device_requests_total",
		"Block requests issued while a thread was inside the syscall, by kind (write, read, flush, discard).", []string{"syscall", "kind"}, nil)
	descDevSeconds = prometheus.NewDesc("tmpprobe_device_seconds_total",
		"Device time of those requests, issue to completion.", []string{"syscall", "kind"}, nil)
	descDevBytes = prometheus.NewDesc("tmpprobe_device_bytes_total",
		"Bytes of those requests.", []string{"syscall", "kind"}, nil)
	descCommits = prometheus.NewDesc("tmpprobe_journal_commits_total",
		"Journal (jbd2) commits that ran while a thread was inside the syscall.", []string{"syscall"}, nil)
	descCommitSeconds = prometheus.NewDesc("tmpprobe_journal_commit_seconds_total",
		"Time of those commits.", []string{"syscall"}, nil)
	descStages = prometheus.NewDesc("tmpprobe_stage_events_total",
		"Other events inside a syscall (page faults, ext4 inode allocation and freeing), by stage.", []string{"syscall", "stage"}, nil)
	descRegionEntries = prometheus.NewDesc("tmpprobe_region_entries_total",
		"Completed entries into a region the target marks (lseek(-1, cookie, phase<<1|begin)).", []string{"region"}, nil)
	descRegionSeconds = prometheus.NewDesc("tmpprobe_region_seconds_total",
		"Time inside those entries.", []string{"region"}, nil)
	descDrops = prometheus.NewDesc("tmpprobe_probe_drops_total",
		"Events the probe could not count, by reason: all zero, every count above is exact.", []string{"reason"}, nil)
	descFolded = prometheus.NewDesc("tmpprobe_label_values_folded",
		"Label values past the cap (--max-syscalls, --max-regions) whose series are summed into the value \"other\".", []string{"label"}, nil)
	descScrapeErrors = prometheus.NewDesc("tmpprobe_scrape_errors_total",
		"Scrapes whose reading of the probe's maps failed (their series are missing from that scrape).", nil, nil)
)

// otherValue is the label value that sums the values past a cap.
const otherValue = "other"

// devKinds are the device stages' kinds, by stage name.
var devKinds = map[string]string{
	results.StageDevWrite: "write", results.StageDevRead: "read",
	results.StageDevFlush: "flush", results.StageDevDiscard: "discard",
}

// labelCap admits a label's values first come, first kept, up to max;
// the values past it are folded into otherValue. What it admitted it
// keeps for the server's life, so a series never moves between a value
// and "other" and every counter stays monotonic.
type labelCap struct {
	max      int
	admitted map[string]bool
	folded   map[string]bool
}

func newLabelCap(max int) *labelCap {
	return &labelCap{max: max, admitted: map[string]bool{}, folded: map[string]bool{}}
}

// value is the label value a series of v is counted under.
func (c *labelCap) value(v string) string {
	if c.admitted[v] {
		return v
	}
	if len(c.admitted) < c.max {
		c.admitted[v] = true
		return v
	}
	// Bounded too: a value once folded is counted, the rest only summed.
	if len(c.folded) < 4*c.max {
		c.folded[v] = true
	}
	return otherValue
}

// collector is the prometheus.Collector of the probe's running totals:
// every scrape reads the maps once, so the counters are the probe's
// counts at that moment, never a sample of them.
type collector struct {
	t     Tracer
	label string

	mu        sync.Mutex // one scrape reads at a time; the caps change under it
	syscalls  *labelCap
	regions   *labelCap
	readFails uint64
}

func newCollector(t Tracer, label string, maxSyscalls, maxRegions int) *collector {
	return &collector{t: t, label: label, syscalls: newLabelCap(maxSyscalls), regions: newLabelCap(maxRegions)}
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descCalls, descErrors, descDuration, descOffCPU, descDevRequests, descDevSeconds,
		descDevBytes, descCommits, descCommitSeconds, descStages, descRegionEntries, descRegionSeconds, descDrops, descFolded, descScrapeErrors} {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	totals, err := c.t.Snapshot()
	drops, derr := c.t.Drops()
	if err != nil || derr != nil {
		c.readFails++
	}
	ch <- prometheus.MustNewConstMetric(descScrapeErrors, prometheus.CounterValue, float64(c.readFails))
	if err == nil {
		c.collectRecords(ch, totals)
	}
	if derr == nil {
		for _, reason := range slices.Sorted(maps.Keys(drops)) {
			ch <- prometheus.MustNewConstMetric(descDrops, prometheus.CounterValue, float64(drops[reason]), reason)
		}
	}
	ch <- prometheus.MustNewConstMetric(descFolded, prometheus.GaugeValue, float64(len(c.syscalls.folded)), "syscall")
	ch <- prometheus.MustNewConstMetric(descFolded, prometheus.GaugeValue, float64(len(c.regions.folded)), "region")
}

// collectRecords sends the series of one snapshot: the whole target as a
// trace reports it (follow.Result.Arms), its records folded past the
// syscall cap, then its regions.
func (c *collector) collectRecords(ch chan<- prometheus.Metric, totals map[uint32][]results.ClassRecord) {
	res := follow.Result{Records: totals}
	arms := res.Arms(c.label)
	var recs []results.ClassRecord
	for _, r := range arms[0].Batches[0].Records {
		r.Class = c.syscalls.value(r.Class)
		recs = results.MergeRecords(recs, []results.ClassRecord{r})
	}
	// Stable order: a scrape's series in the same order every time.
	slices.SortFunc(recs, func(a, b results.ClassRecord) int {
		return strings.Compare(a.Class+"\x00"+a.Stage, b.Class+"\x00"+b.Stage)
	})
	for _, r := range recs {
		c.collectRecord(ch, r)
	}
	type region struct{ entries, ns uint64 }
	regions := map[string]region{}
	for _, a := range arms[1:] {
		name := c.regions.value(strconv.FormatUint(uint64(*a.Region), 10))
		g := regions[name]
		for _, b := range a.Batches {
			g.entries += uint64(b.Ops)
			g.ns += uint64(b.WallNs)
		}
		regions[name] = g
	}
	for _, name := range slices.Sorted(maps.Keys(regions)) {
		g := regions[name]
		ch <- prometheus.MustNewConstMetric(descRegionEntries, prometheus.CounterValue, float64(g.entries), name)
		ch <- prometheus.MustNewConstMetric(descRegionSeconds, prometheus.CounterValue, seconds(g.ns), name)
	}
}

// collectRecord sends the series of one class (or one stage inside it).
func (c *collector) collectRecord(ch chan<- prometheus.Metric, r results.ClassRecord) {
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	switch {
	case r.Stage == "" && r.Class == results.ClassUser:
		// Off the CPU between syscalls: no call, no duration.
	case r.Stage == "":
		counter(descCalls, float64(r.Calls), r.Class)
		counter(descErrors, float64(r.Errors), r.Class)
		buckets, count := classicBuckets(r.Hist)
		ch <- prometheus.MustNewConstHistogram(descDuration, count, seconds(r.TotalNs), buckets, r.Class)
	case devKinds[r.Stage] != "":
		kind := devKinds[r.Stage]
		counter(descDevRequests, float64(r.Calls), r.Class, kind)
		counter(descDevSeconds, seconds(r.TotalNs), r.Class, kind)
		counter(descDevBytes, float64(r.Bytes), r.Class, kind)
		return
	case r.Stage == results.StageJBD2Commit:
		counter(descCommits, float64(r.Calls), r.Class)
		counter(descCommitSeconds, seconds(r.TotalNs), r.Class)
		return
	default:
		counter(descStages, float64(r.Calls), r.Class, r.Stage)
		return
	}
	for _, l := range slices.Sorted(maps.Keys(r.OffNs)) {
		counter(descOffCPU, seconds(r.OffNs[l]), r.Class, l)
	}
}

func seconds(ns uint64) float64 { return float64(ns) / 1e9 }
