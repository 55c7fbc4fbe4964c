package probe

import (
	"strings"
	"testing"
)

func TestParseKallsyms(t *testing.T) {
	const kallsyms = `ffffffff816d2230 t do_sys_openat2
ffffffff816d2730 T __x64_sys_openat
0000000000000000 T vfs_fsync_range
ffffffff8121a053 t jbd2_log_wait_commit.cold
ffffffff81848460 T jbd2_log_wait_commit	[jbd2]
ffffffff81000000 t do_unlinkat.isra.0
ffffffff81000010 t do_linkat.constprop.0
ffffffff82b77020 d __x64_sys_unlink
ffffffff82462b70 r __ksymtab_vfs_unlink
short line
`
	wanted := []string{"do_sys_openat2", "__x64_sys_openat", "vfs_fsync_range", "jbd2_log_wait_commit",
		"do_unlinkat", "do_linkat", "__x64_sys_unlink", "vfs_unlink"}
	syms, err := parseKallsyms(strings.NewReader(kallsyms), wanted)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, missing string
	}{
		{"do_sys_openat2", ""},       // static: t
		{"__x64_sys_openat", ""},     // global: T
		{"vfs_fsync_range", ""},      // kptr_restrict hides the address, not the name
		{"jbd2_log_wait_commit", ""}, // module symbol; the .cold part is not a copy
		{"do_unlinkat", "only the compiler's copy do_unlinkat.isra.0"},
		{"do_linkat", "only the compiler's copy do_linkat.constprop.0"},
		{"__x64_sys_unlink", "no __x64_sys_unlink in kallsyms"}, // data, not text
		{"vfs_unlink", "no vfs_unlink in kallsyms"},
	} {
		got := syms.Missing(tc.name)
		if (tc.missing == "") != (got == "") || !strings.HasPrefix(got, tc.missing) {
			t.Errorf("Missing(%s) = %q, want prefix %q", tc.name, got, tc.missing)
		}
	}
}
