//go:build linux

package probe

import (
	"crypto/sha256"
	"encoding/hex"
)

// ObjectSHA256 is the hex SHA-256 of the BPF object compiled into this
// binary. The object decides what the numbers mean as much as the Go code
// does, and two clangs compile the same source to different objects, so a
// build is identified by both.
func ObjectSHA256() string {
	sum := sha256.Sum256(_TmpprobeBytes)
	return hex.EncodeToString(sum[:])
}
