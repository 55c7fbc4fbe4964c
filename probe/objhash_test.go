//go:build linux

package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"
)

// The hash is of the object bpf2go embeds, the committed file.
func TestObjectSHA256(t *testing.T) {
	b, err := os.ReadFile(ObjectFile)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if got, want := ObjectSHA256(), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("ObjectSHA256() = %s, want %s (the sha256 of %s)", got, want, ObjectFile)
	}
}
