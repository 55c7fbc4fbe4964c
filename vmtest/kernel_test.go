package vmtest

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestParseDepends(t *testing.T) {
	for _, tc := range []struct {
		name, meta, out, want string
		ok                    bool
	}{
		{"bookworm", "linux-image-amd64", "linux-image-amd64\n  Depends: linux-image-6.1.0-57-amd64\n", "linux-image-6.1.0-57-amd64", true},
		{"6.12 for bookworm", "linux-image-6.12-amd64", "linux-image-6.12-amd64\n  Depends: linux-image-6.12.117+deb12-amd64\n", "linux-image-6.12.117+deb12-amd64", true},
		{"virtual first", "linux-image-amd64", "linux-image-amd64\n  Depends: <linux-initramfs-tool>\n  Depends: linux-image-6.12.9-amd64\n", "linux-image-6.12.9-amd64", true},
		{"no package", "linux-image-amd64", "linux-image-amd64\n", "", false},
		{"only itself", "linux-image-6.12-amd64", "linux-image-6.12-amd64\n  Depends: linux-image-6.12-amd64\n", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDepends(tc.out, tc.meta)
			if got != tc.want || (err == nil) != tc.ok {
				t.Errorf("got %q, %v", got, err)
			}
		})
	}
}

// The image and its config come out of the package's tar; the rest of it
// (System.map, a directory named like a prefix) is left alone.
func TestCopyFromTarAndConfig(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range []struct {
		name, body string
		dir        bool
	}{
		{"./boot/", "", true},
		{"./boot/System.map-6.12.117+deb12-amd64", "map", false},
		{"./boot/config-6.12.117+deb12-amd64", "# CONFIG_FOO is not set\nCONFIG_FPROBE=y\nCONFIG_FPROBE_EVENTS=y\n", false},
		{"./boot/vmlinuz-6.12.117+deb12-amd64", "kernel", false},
	} {
		h := &tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), Typeflag: tar.TypeReg}
		if f.dir {
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(f.body))
	}
	tw.Close()

	dir := t.TempDir()
	k := Kernel{Vmlinuz: filepath.Join(dir, "vmlinuz"), Config: filepath.Join(dir, "config")}
	want := map[string]string{"./boot/vmlinuz-": k.Vmlinuz, "./boot/config-": k.Config}
	found, err := copyFromTar(&buf, want)
	if err != nil || !found["./boot/vmlinuz-"] || !found["./boot/config-"] {
		t.Fatalf("found %v, %v", found, err)
	}
	if b, _ := os.ReadFile(k.Vmlinuz + ".tmp"); string(b) != "kernel" {
		t.Errorf("vmlinuz %q", b)
	}
	os.Rename(k.Config+".tmp", k.Config)
	for option, want := range map[string]bool{"CONFIG_FPROBE": true, "CONFIG_FOO": false, "CONFIG_KPROBES": false} {
		if got, err := k.HasConfig(option); got != want || err != nil {
			t.Errorf("HasConfig(%s) = %v, %v", option, got, err)
		}
	}
}
