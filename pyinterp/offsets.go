package pyinterp

import (
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Offsets are the CPython member offsets the BPF walker and the names
// use. offsets/3.N.json is what offsets/pyoffsets.c printed compiled
// against that version's installed headers (offsetof on the real
// structures: _PyRuntimeState, PyInterpreterState, PyThreadState,
// _PyCFrame, PyFrameObject or _PyInterpreterFrame, PyCodeObject,
// PyASCIIObject), by offsets/gen.sh.
type Offsets struct {
	Version                 string `json:"version"`
	RuntimeInterpretersHead uint64 `json:"runtime_interpreters_head"`
	InterpNext              uint64 `json:"interp_next"`
	InterpThreadsHead       uint64 `json:"interp_threads_head"`
	TstateNext              uint64 `json:"tstate_next"`
	TstateInterp            uint64 `json:"tstate_interp"`
	TstateThreadID          uint64 `json:"tstate_thread_id"`
	TstateNativeThreadID    uint64 `json:"tstate_native_thread_id"`
	TstateFrame             uint64 `json:"tstate_frame"`
	CframeCurrentFrame      uint64 `json:"cframe_current_frame"`
	TstateFrameIsCframe     uint64 `json:"tstate_frame_is_cframe"`
	FrameIsInterp           uint64 `json:"frame_is_interpreter_frame"`
	FramePrevious           uint64 `json:"frame_previous"`
	FrameCode               uint64 `json:"frame_code"`
	FrameInstr              uint64 `json:"frame_instr"`
	FrameOwner              uint64 `json:"frame_owner"`
	FrameOwnerCstack        uint64 `json:"frame_owner_cstack"`
	CodeAdaptive            uint64 `json:"code_co_code_adaptive"`
	CodeQualname            uint64 `json:"code_qualname"`
	CodeLinetable           uint64 `json:"code_linetable"`
	CodeFirstTraceable      uint64 `json:"code_firsttraceable"`
	CodeFilename            uint64 `json:"code_filename"`
	CodeName                uint64 `json:"code_name"`
	CodeFirstLineno         uint64 `json:"code_firstlineno"`
	ObjectType              uint64 `json:"object_type"`
	VarObjectSize           uint64 `json:"varobject_size"`
	BytesSval               uint64 `json:"bytes_sval"`
	UnicodeLength           uint64 `json:"unicode_length"`
	UnicodeState            uint64 `json:"unicode_state"`
	UnicodeASCIISize        uint64 `json:"unicode_ascii_size"`
	UnicodeCompactSize      uint64 `json:"unicode_compact_size"`
}

//go:embed offsets/*.json
var offsetFiles embed.FS

// Minors are the CPython 3 minor versions with an offsets table: the
// interpreters whose frames tmpprobe reads.
func Minors() []int {
	entries, _ := offsetFiles.ReadDir("offsets")
	var out []int
	for _, e := range entries {
		var m int
		if _, err := fmt.Sscanf(e.Name(), "3.%d.json", &m); err == nil {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return out
}

// Supported says which versions those are, as "3.8-3.13".
func Supported() string {
	m := Minors()
	if len(m) == 0 {
		return "none"
	}
	return fmt.Sprintf("3.%d-3.%d", m[0], m[len(m)-1])
}

// TableOffsets returns the header-derived offsets for 3.minor.
func TableOffsets(minor int) (Offsets, error) {
	var o Offsets
	b, err := offsetFiles.ReadFile(fmt.Sprintf("offsets/3.%d.json", minor))
	if err != nil {
		return o, fmt.Errorf("CPython 3.%d: its frames are not read (no offsets table; tmpprobe reads %s)", minor, Supported())
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return o, fmt.Errorf("offsets/3.%d.json: %w", minor, err)
	}
	return o, nil
}

// diffOffsets names the members where a and b differ.
func diffOffsets(a, b Offsets) string {
	var out []string
	bv := offsetFields(b)
	for name, x := range offsetFields(a) {
		if bv[name] != x {
			out = append(out, fmt.Sprintf("%s %d/%d", name, x, bv[name]))
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

func offsetFields(o Offsets) map[string]uint64 {
	return map[string]uint64{
		"runtime_interpreters_head": o.RuntimeInterpretersHead,
		"interp_next":               o.InterpNext,
		"interp_threads_head":       o.InterpThreadsHead,
		"tstate_next":               o.TstateNext,
		"tstate_interp":             o.TstateInterp,
		"tstate_thread_id":          o.TstateThreadID,
		"tstate_native_thread_id":   o.TstateNativeThreadID,
		"tstate_frame":              o.TstateFrame,
		"frame_previous":            o.FramePrevious,
		"frame_code":                o.FrameCode,
		"frame_instr":               o.FrameInstr,
		"frame_owner":               o.FrameOwner,
		"code_co_code_adaptive":     o.CodeAdaptive,
		"code_qualname":             o.CodeQualname,
		"code_linetable":            o.CodeLinetable,
		"code_filename":             o.CodeFilename,
		"code_name":                 o.CodeName,
		"code_firstlineno":          o.CodeFirstLineno,
		"object_type":               o.ObjectType,
		"bytes_sval":                o.BytesSval,
		"unicode_state":             o.UnicodeState,
		"unicode_length":            o.UnicodeLength,
		"unicode_ascii_size":        o.UnicodeASCIISize,
	}
}
