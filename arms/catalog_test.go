//go:build linux

package arms_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// Every name an entry gives (its baseline, the arms it is compared with,
// its driver function) resolves, so a typo fails here and not as a
// missing WHY sentence or a worker that cannot start.
func TestCatalogueResolves(t *testing.T) {
	src, err := os.ReadFile("driver.py")
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^@op\ndef (\w+)\(\):`).FindAllStringSubmatch(string(src), -1) {
		defs[m[1]] = true
	}
	inLab := map[string]bool{}
	baselines := map[string]int{}
	for _, a := range arms.Catalog {
		key := a.Lab + "/" + a.Name
		if inLab[key] {
			t.Errorf("%s twice", key)
		}
		inLab[key] = true
		if a.Baseline {
			baselines[a.Lab]++
		}
	}
	for _, lab := range arms.Labs {
		if baselines[lab] != 1 {
			t.Errorf("lab %s has %d baselines, want 1", lab, baselines[lab])
		}
	}
	for _, a := range arms.Catalog {
		key := a.Lab + "/" + a.Name
		for _, v := range append(append([]string(nil), a.Versus...), a.SpillVersus) {
			if v != "" && (v == a.Name || !inLab[a.Lab+"/"+v]) {
				t.Errorf("%s is compared with %q, not another arm of its lab", key, v)
			}
		}
		if !defs[a.Python] {
			t.Errorf("%s runs %q, which driver.py does not define as an op", key, a.Python)
		}
		if len(a.Go) == 0 {
			t.Errorf("%s has no Go steps", key)
		}
	}
}

// The WHY section, told by the catalogue, explains every modes arm against
// TemporaryFile and then mkstemp-fsync against mkstemp-close-unlink; per
// size SpooledTemporaryFile against BytesIO and NamedTemporaryFile against
// SpooledTemporaryFile; and where SpooledTemporaryFile rolled over, beside
// NamedTemporaryFile's writes.
func TestWhyComparesFromCatalogue(t *testing.T) {
	traced := func(lab, arm string, size int, recs ...results.ClassRecord) results.ArmResult {
		a := results.ArmResult{CaseID: results.CaseID{Lab: lab, Arm: arm, Runtime: "go", Dir: "/tmp", SizeBytes: size}, Ops: 10}
		if size == 0 {
			a.PayloadBytes = 400
		}
		a.Batches = []results.Batch{{Round: 1, Ops: 10, WallNs: 1e6}, {Round: 1, Ops: 10, Traced: true, WallNs: 1e6, Records: recs}}
		return a
	}
	var run results.Run
	for _, a := range arms.Catalog {
		if a.Lab == arms.LabModes {
			run.Arms = append(run.Arms, traced(a.Lab, a.Name, 0, results.ClassRecord{Class: "write", Calls: 10, TotalNs: 1e4}))
			continue
		}
		for _, size := range []int{256 << 10, 4 << 20} {
			var recs []results.ClassRecord
			if a.Name != "BytesIO" && (size > 1<<20 || a.Name == "NamedTemporaryFile") {
				recs = []results.ClassRecord{{Class: "openat[tmpfile]", Calls: 10, TotalNs: 1e4}, {Class: "write", Calls: 50, TotalNs: 1e5}}
			}
			run.Arms = append(run.Arms, traced(a.Lab, a.Name, size, recs...))
		}
	}
	k := arms.Knowledge()
	var got []string
	for _, g := range explain.Comparisons(results.SummarizeAll(&run, k.Baselines), k.Pairs) {
		got = append(got, fmt.Sprintf("%s %s−%s", g.A.Param(), g.A.Arm, g.B.Arm))
	}
	// The two headline questions first (#21).
	want := []string{
		"payload=400 NamedTemporaryFile−TemporaryFile", "payload=400 mkstemp-fsync−mkstemp-close-unlink",
		"payload=400 NamedTemporaryFile-keep−TemporaryFile",
		"payload=400 mkstemp-unlink-open−TemporaryFile", "payload=400 mkstemp-close-unlink−TemporaryFile",
		"payload=400 mkstemp-fsync−TemporaryFile", "payload=400 tmpfile-linkat−TemporaryFile",
		"payload=400 atomic-replace−TemporaryFile", "payload=400 mkstemp-fdatasync−TemporaryFile",
		"size=256K SpooledTemporaryFile−BytesIO", "size=256K NamedTemporaryFile−SpooledTemporaryFile",
		"size=4M SpooledTemporaryFile−BytesIO", "size=4M NamedTemporaryFile−SpooledTemporaryFile",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("WHY compares\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	spills := explain.SpillSentences(results.SummarizeAll(&run, k.Baselines), k.Spills)
	if len(spills) != 1 || !strings.HasPrefix(spills[0], "SpooledTemporaryFile (go): up to 256 KiB it stayed in memory") ||
		!strings.Contains(spills[0], "from 4 MiB it rolled over") || !strings.Contains(spills[0], "NamedTemporaryFile makes 5") {
		t.Errorf("spill sentences %q", spills)
	}
}
