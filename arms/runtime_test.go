//go:build linux

package arms_test

import (
	"context"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/arms"
)

// go needs no interpreter; python without one is an error naming it; auto
// without one runs go alone and says why.
func TestResolveRuntimes(t *testing.T) {
	missing := "/nonexistent/python3"
	if rts, skipped, err := arms.ResolveRuntimes(context.Background(), "go", missing, time.Minute); err != nil || skipped != nil || len(rts) != 1 || rts[0].Name != "go" {
		t.Errorf("go: %v, %v, %v", rts, skipped, err)
	}
	if _, _, err := arms.ResolveRuntimes(context.Background(), "python", missing, time.Minute); err == nil || err.Error() != missing+": not found" {
		t.Errorf("python without an interpreter: %v", err)
	}
	rts, skipped, err := arms.ResolveRuntimes(context.Background(), "auto", missing, time.Minute)
	if err != nil || skipped == nil || len(rts) != 1 || rts[0].Name != "go" || arms.PythonVersion(rts) != "" {
		t.Errorf("auto without an interpreter: %v, %v, %v", rts, skipped, err)
	}
	if _, _, err := arms.ResolveRuntimes(context.Background(), "ruby", missing, time.Minute); err == nil {
		t.Error("an unknown runtime resolved")
	}
}
