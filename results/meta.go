package results

import "time"

// Schema is the version of run.json; readers refuse other versions.
const Schema = 1

// Run is a whole run: what was run, where, how it was observed, and every
// batch. run.json is this struct.
type Run struct {
	Schema   int               `json:"schema"`
	Tool     string            `json:"tool"`
	Started  time.Time         `json:"started"`
	Finished time.Time         `json:"finished"`
	Complete bool              `json:"complete"`
	Args     []string          `json:"args"`
	Meta     Meta              `json:"meta"`
	Drops    map[string]uint64 `json:"drops,omitempty"`
	Arms     []ArmResult       `json:"arms"`
}

// Meta are the facts that decide what the numbers mean.
type Meta struct {
	KernelRelease string   `json:"kernel_release"`
	Machine       string   `json:"machine"`
	CPU           string   `json:"cpu,omitempty"`
	CPUs          int      `json:"cpus"`
	Python        string   `json:"python,omitempty"`
	Backend       string   `json:"backend"`
	BackendDetail string   `json:"backend_detail,omitempty"`
	MissingHooks  []string `json:"missing_hooks,omitempty"`
	Notes         []string `json:"notes,omitempty"`
}
