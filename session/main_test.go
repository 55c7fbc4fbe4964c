//go:build linux

package session

import (
	"os"
	"testing"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/internal/sudotest"
)

// The labs' Go workers are this test binary again, as they are tmpprobe
// in a run. make test's sudo is forgotten: root's own runs, in root's
// temp dirs, which the invoker could not open.
func TestMain(m *testing.M) {
	arms.ServeIfWorker()
	sudotest.Forget()
	os.Exit(m.Run())
}
