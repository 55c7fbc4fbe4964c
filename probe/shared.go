//go:build linux

package probe

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/cilium/ebpf/btf"
)

// The numbers Go shares with the BPF programs are bpf/tmpprobe.h's enums,
// which bpf2go -type turns into the typed tmpprobe* constants (gen.go);
// the labels printed for them are their enumerators' names, read here from
// the object's BTF. A number or a name changed in C thus reaches Go with
// 'make generate', and shared_test.go checks the Go tables that remain.

// sharedEnum is a C enum whose enumerators name what they number.
type sharedEnum struct {
	name   string // the C enum's tag
	prefix string // of the enumerators that are labels; NR_* counts are not
}

var (
	enumStage    = sharedEnum{"stage", "STAGE_"}
	enumDrop     = sharedEnum{"drop_reason", "DROP_"}
	enumOffState = sharedEnum{"off_state", "OFF_"}
	enumOffWaker = sharedEnum{"off_waker", "WAKER_"}
	labelEnums   = []sharedEnum{enumStage, enumDrop, enumOffState, enumOffWaker}
)

// enumLabels maps each label enum's values to their labels: the
// enumerator, lower case, without its prefix (STAGE_BIO_WRITE: bio_write).
var enumLabels = sync.OnceValue(func() map[sharedEnum]map[uint64]string {
	labels, err := readEnumLabels(_TmpprobeBytes)
	if err != nil {
		// The object is compiled into the binary: only a broken build
		// gets here, and every test does.
		panic(fmt.Sprintf("BPF object: %v", err))
	}
	return labels
})

func readEnumLabels(object []byte) (map[sharedEnum]map[uint64]string, error) {
	spec, err := btf.LoadSpecFromReader(bytes.NewReader(object))
	if err != nil {
		return nil, err
	}
	out := map[sharedEnum]map[uint64]string{}
	for _, e := range labelEnums {
		var enum *btf.Enum
		if err := spec.TypeByName(e.name, &enum); err != nil {
			return nil, fmt.Errorf("enum %s: %w", e.name, err)
		}
		out[e] = map[uint64]string{}
		for _, v := range enum.Values {
			if name, ok := strings.CutPrefix(v.Name, e.prefix); ok {
				out[e][v.Value] = strings.ToLower(name)
			}
		}
	}
	return out, nil
}

// enumLabel is the label of value v of e.
func enumLabel(e sharedEnum, v uint64) (string, bool) {
	l, ok := enumLabels()[e][v]
	return l, ok
}
