package atomicfile

import (
	"os"
	"testing"
)

// Tests run as root, through make test's sudo, and write in root's temp
// dirs: they are root's own runs. A test of what tmpprobe does for a sudo
// user sets SUDO_UID and SUDO_GID for it (a real second user's).
func TestMain(m *testing.M) {
	for _, v := range []string{"SUDO_UID", "SUDO_GID", "SUDO_USER"} {
		os.Unsetenv(v)
	}
	os.Exit(m.Run())
}
