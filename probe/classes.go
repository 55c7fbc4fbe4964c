package probe

import "fmt"

// Pseudo classes and stages of bpf/tmpprobe.h.
const (
	classOpenatTmpfile = 1024
	classOpenatCreate  = 1025
	classUser          = 1100
)

// ClassName names a syscall class the way reports and CSVs show it.
func ClassName(c uint16) string {
	switch c {
	case classOpenatTmpfile:
		return "openat[tmpfile]"
	case classOpenatCreate:
		return "openat[create]"
	case classUser:
		return "user"
	}
	if n, ok := syscallNames[c]; ok {
		return n
	}
	return fmt.Sprintf("syscall_%d", c)
}

var stageNames = map[uint16]string{
	0: "",
	1: "page_fault",
}

// StageName names a stage inside a class; "" is the syscall itself.
func StageName(s uint16) string {
	if n, ok := stageNames[s]; ok {
		return n
	}
	for _, f := range StageFuncs {
		if f.Stage == s {
			return f.Func
		}
	}
	return fmt.Sprintf("stage_%d", s)
}

var (
	offStates = []string{"preempted", "sleep", "blocked"}
	offWakers = []string{"", "jbd2", "irq", "kworker", "other"}
)

// OffLabel names an off-CPU label index (state*5 + waker) of bpf/tmpprobe.h.
func OffLabel(i int) string {
	st, wk := i/len(offWakers), i%len(offWakers)
	if st >= len(offStates) {
		return fmt.Sprintf("label_%d", i)
	}
	if offWakers[wk] == "" || st == 0 {
		return offStates[st]
	}
	return offStates[st] + "/" + offWakers[wk]
}
