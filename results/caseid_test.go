package results_test

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// A case's CSV identity columns are its JSON names, and its cells read
// back as the case that wrote them.
func TestCaseIDColumns(t *testing.T) {
	want := []string{"lab", "arm", "runtime", "dir", "payload_bytes", "size_bytes"}
	if got := results.CaseColumns(); !reflect.DeepEqual(got, want) {
		t.Errorf("CaseColumns() = %q, want %q", got, want)
	}
	c := results.CaseID{Lab: "buffers", Arm: "SpooledTemporaryFile", Runtime: "python", Dir: "/tmp", SizeBytes: 1 << 20}
	cells := map[string]string{}
	for i, name := range results.CaseColumns() {
		cells[name] = c.Cells()[i]
	}
	if cells["size_bytes"] != "1048576" || cells["payload_bytes"] != "0" {
		t.Errorf("cells %q", cells)
	}
	back := results.ReadCase(func(n string) string { return cells[n] }, func(n string) int64 {
		v, _ := strconv.ParseInt(cells[n], 10, 64)
		return v
	})
	if back != c {
		t.Errorf("read back %+v, want %+v", back, c)
	}
}
