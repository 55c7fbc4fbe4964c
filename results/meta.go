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
	KernelRelease string     `json:"kernel_release"`
	Machine       string     `json:"machine"`
	CPU           string     `json:"cpu,omitempty"`
	CPUs          int        `json:"cpus"`
	Python        string     `json:"python,omitempty"`
	Backend       string     `json:"backend"`
	BackendDetail string     `json:"backend_detail,omitempty"`
	MissingHooks  []string   `json:"missing_hooks,omitempty"`
	Dirs          []DirFacts `json:"dirs,omitempty"`
	LoadAvg       float64    `json:"loadavg_1m"`
	Notes         []string   `json:"notes,omitempty"`
	Warnings      []string   `json:"warnings,omitempty"`
}

// DirFacts describe the filesystem a work directory lives on.
type DirFacts struct {
	Dir        string `json:"dir"`
	FSType     string `json:"fs_type"`
	Source     string `json:"source,omitempty"`
	MountPoint string `json:"mount_point,omitempty"`
	Options    string `json:"mount_options,omitempty"`
	Dev        string `json:"dev,omitempty"`     // major:minor
	Journal    string `json:"journal,omitempty"` // yes, no, or "" when not known / not ext4
	FastCommit string `json:"fast_commit,omitempty"`
	Disk       string `json:"disk,omitempty"`
	WriteCache string `json:"write_cache,omitempty"` // "write back" or "write through"
	FUA        string `json:"fua,omitempty"`
}
