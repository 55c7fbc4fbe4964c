package atomicfile

import (
	"os"
	"testing"

	"github.com/tmpprobe/tmpprobe/internal/sudotest"
)

func TestMain(m *testing.M) {
	sudotest.Forget() // root's own runs, in root's temp dirs
	os.Exit(m.Run())
}
