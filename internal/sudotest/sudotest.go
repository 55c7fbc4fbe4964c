// Package sudotest is for tests that run as root through make test's
// sudo, which sets SUDO_UID, SUDO_GID and SUDO_USER: a test writing in
// root's temp dirs is root's own run, not the sudo user's, whose rights
// tmpprobe's outputs are opened with (safefs.AsInvoker).
package sudotest

import "os"

// Forget takes what sudo set out of the environment, and returns it: a
// test of what tmpprobe does for a sudo user sets it again (a real second
// user's), and git, run as root in the user's clone, needs it to trust
// that clone (safe.directory).
func Forget() (was []string) {
	for _, v := range []string{"SUDO_UID", "SUDO_GID", "SUDO_USER"} {
		if val, ok := os.LookupEnv(v); ok {
			was = append(was, v+"="+val)
		}
		os.Unsetenv(v)
	}
	return was
}
