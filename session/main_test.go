//go:build linux

package session

import (
	"os"
	"testing"

	"github.com/tmpprobe/tmpprobe/arms"
)

// The labs' Go workers are this test binary again, as they are tmpprobe
// in a run.
func TestMain(m *testing.M) {
	arms.ServeIfWorker()
	os.Exit(m.Run())
}
