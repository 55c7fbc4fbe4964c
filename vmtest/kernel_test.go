package vmtest

import "testing"

func TestParseDepends(t *testing.T) {
	for _, tc := range []struct {
		name, out, want string
		ok              bool
	}{
		{"bookworm", "linux-image-amd64\n  Depends: linux-image-6.1.0-57-amd64\n", "linux-image-6.1.0-57-amd64", true},
		{"virtual first", "linux-image-amd64\n  Depends: <linux-initramfs-tool>\n  Depends: linux-image-6.12.9-amd64\n", "linux-image-6.12.9-amd64", true},
		{"no package", "linux-image-amd64\n", "", false},
		{"only itself", "linux-image-amd64\n  Depends: linux-image-amd64\n", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDepends(tc.out)
			if got != tc.want || (err == nil) != tc.ok {
				t.Errorf("got %q, %v", got, err)
			}
		})
	}
}
