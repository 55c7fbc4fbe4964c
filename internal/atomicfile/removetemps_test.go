package atomicfile

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RemoveTemps removes the stage and the temp file being written. It keeps
// the lock that every write takes, for good, as tmpprobe exits after it:
// so it runs in a child, this test binary again, which exits as tmpprobe
// does.
func TestRemoveTemps(t *testing.T) {
	if dir := os.Getenv("ATOMICFILE_REMOVE_TEMPS"); dir != "" {
		pf, _ := os.Open(dir)
		s, err := NewStage(pf, ".d.tmp-")
		if err != nil {
			t.Fatal(err)
		}
		s.Add("a", text("a"))
		Write(filepath.Join(dir, "f"), func(w io.Writer) error {
			RemoveTemps()
			io.WriteString(os.Stdout, "removed, left: "+names(t, dir)+".\n")
			os.Exit(0)
			return nil
		})
		t.Fatal("the write went on after RemoveTemps")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRemoveTemps$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_REMOVE_TEMPS="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !bytes.Contains(out, []byte("removed, left: .\n")) {
		t.Errorf("left while writing: %s", out)
	}
	if got := names(t, dir); got != "" {
		t.Errorf("left %s", got)
	}
}
