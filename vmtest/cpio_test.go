package vmtest

import (
	"bytes"
	"strconv"
	"testing"
)

type cpioEntry struct {
	name         string
	mode, rmajor uint64
	rminor       uint64
	data         string
}

// readNewc is the reading half of the format, to check what Cpio wrote.
func readNewc(t *testing.T, b []byte) []cpioEntry {
	t.Helper()
	var out []cpioEntry
	for off := 0; ; {
		if len(b)-off < 110 || string(b[off:off+6]) != "070701" {
			t.Fatalf("bad header at %d", off)
		}
		field := func(i int) uint64 {
			v, err := strconv.ParseUint(string(b[off+6+8*i:off+14+8*i]), 16, 32)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		size, nameSize := int(field(6)), int(field(11))
		e := cpioEntry{string(b[off+110 : off+110+nameSize-1]), field(1), field(9), field(10), ""}
		off = align4(off + 110 + nameSize)
		e.data = string(b[off : off+size])
		off = align4(off + size)
		if e.name == "TRAILER!!!" {
			if off != len(b) {
				t.Errorf("%d bytes after the trailer", len(b)-off)
			}
			return out
		}
		out = append(out, e)
	}
}

func align4(n int) int { return (n + 3) &^ 3 }

func TestCpioNewc(t *testing.T) {
	var buf bytes.Buffer
	a := NewCpio(&buf)
	a.Dir("dev", 0o755)
	a.CharDev("dev/console", 0o600, 5, 1)
	a.File("init", 0o755, []byte("#!x"))
	a.File("empty", 0o644, nil)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.Len()%4 != 0 {
		t.Errorf("archive length %d not 4-aligned", buf.Len())
	}
	want := []cpioEntry{
		{"dev", 0o040755, 0, 0, ""},
		{"dev/console", 0o020600, 5, 1, ""},
		{"init", 0o100755, 0, 0, "#!x"},
		{"empty", 0o100644, 0, 0, ""},
	}
	got := readNewc(t, buf.Bytes())
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
