package explain

import (
	"slices"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// The stages and off-CPU labels explain keys on are among those results
// lists, which probe's TestGoTablesMatchCEnums holds to the BPF object: a
// key outside them would never match a record.
func TestKeysAreResultsNames(t *testing.T) {
	for _, io := range ioStages {
		if !slices.Contains(results.StageNames, io.stage) {
			t.Errorf("ioStages: %q is not in results.StageNames", io.stage)
		}
	}
	for label := range offWords {
		if !slices.Contains(results.OffLabels, label) {
			t.Errorf("offWords: %q is not in results.OffLabels", label)
		}
	}
}
