//go:build linux

package arms_test

import (
	"testing"

	"github.com/tmpprobe/tmpprobe/arms"
)

// go needs no interpreter; python without one is an error naming it; auto
// without one runs go alone and says why.
func TestResolveRuntimes(t *testing.T) {
	missing := "/nonexistent/python3"
	if rts, skipped, err := arms.ResolveRuntimes("go", missing); err != nil || skipped != nil || len(rts) != 1 || rts[0].Name != "go" {
		t.Errorf("go: %v, %v, %v", rts, skipped, err)
	}
	if _, _, err := arms.ResolveRuntimes("python", missing); err == nil || err.Error() != missing+": not found" {
		t.Errorf("python without an interpreter: %v", err)
	}
	rts, skipped, err := arms.ResolveRuntimes("auto", missing)
	if err != nil || skipped == nil || len(rts) != 1 || rts[0].Name != "go" || arms.PythonVersion(rts) != "" {
		t.Errorf("auto without an interpreter: %v, %v, %v", rts, skipped, err)
	}
	if _, _, err := arms.ResolveRuntimes("ruby", missing); err == nil {
		t.Error("an unknown runtime resolved")
	}
}
