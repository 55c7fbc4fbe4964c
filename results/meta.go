package results

import "time"

// Schema is the version of run.json; readers refuse other versions.
// Schema 2: measured rounds, calibration and warm-up batches, the protocol.
const Schema = 2

// Run is a whole run as measured: what was run, where, how it was
// observed, and every batch. run.json is this struct with what was
// derived from it beside (Derived, see MarshalJSON).
type Run struct {
	Schema   int               `json:"schema"`
	Tool     string            `json:"tool"`
	Kind     RunKind           `json:"kind,omitempty"`
	Started  time.Time         `json:"started"`
	Finished time.Time         `json:"finished"`
	Complete bool              `json:"complete"`
	Args     []string          `json:"args"`
	Protocol Protocol          `json:"protocol"`
	Meta     Meta              `json:"meta"`
	Drops    map[string]uint64 `json:"drops,omitempty"`
	Timing   *Timing           `json:"timing,omitempty"`
	// Stacks are the frames and stacks the batches' StackRecords index,
	// and how they were taken; nil when none were.
	Stacks *Stacks     `json:"stacks,omitempty"`
	Arms   []ArmResult `json:"arms"`
	// Source says where a run read from a file came from: "" for a
	// run.json, SourceCSV for a run rebuilt from a syscalls.csv.
	Source string `json:"-"`
	// Derived is what was concluded from the measurements above, computed
	// outside them and kept beside them: never measured, and never read
	// as if it were.
	Derived Derived `json:"-"`
}

// SourceCSV marks a run rebuilt from a syscalls.csv: it carries no host
// facts but the backend and the kernel, and one round.
const SourceCSV = "syscalls.csv"

// Protocols: how a run orders and sizes its batches.
const (
	// ProtocolRounds runs R rounds; each runs an untraced and a traced
	// batch of every case, in a fresh random order, batches sized by time.
	ProtocolRounds = "rounds"
	// ProtocolSeed is the labs' published method: arms in sequence, a
	// fixed batch size, the p50 batch.
	ProtocolSeed = "seed"
)

// Timing is where a labs run's wall time (Started to Finished) went,
// stage by stage, in ns; what is left of it went between them (the
// engine's own work, the reading of results). The measured batches are
// what a run is for: make bench holds their share of the whole.
type Timing struct {
	SetupNs     int64 `json:"setup_ns"`     // preflight, the probe's load and attach, the work dirs
	StartNs     int64 `json:"start_ns"`     // starting and ending workers, every generation
	CalibrateNs int64 `json:"calibrate_ns"` // calibration batches
	WarmupNs    int64 `json:"warmup_ns"`    // warm-up batches
	SwitchNs    int64 `json:"switch_ns"`    // attaching and detaching the probe between halves
	// RoundsNs are the measured batches from handing each to its worker
	// to its records read; MeasuredNs the part of it inside them, the sum
	// of their wall_ns.
	RoundsNs   int64 `json:"rounds_ns"`
	MeasuredNs int64 `json:"measured_ns"`
}

// Protocol says how the batches of a run were ordered and sized.
type Protocol struct {
	Name       string `json:"name"`
	Seed       uint64 `json:"seed,omitempty"` // of the rounds' order; --seed replays it
	Rounds     int    `json:"rounds,omitempty"`
	MinBatchNs int64  `json:"min_batch_ns,omitempty"`
	FixedOps   int    `json:"fixed_ops,omitempty"` // --ops: no calibration
	// WorkerRounds is how many rounds each worker generation ran, the unit
	// of the intervals (0 in runs saved before it was recorded).
	WorkerRounds int `json:"worker_rounds,omitempty"`
	// FreshWarmup is a later generation's warm-up batch as a share of
	// the case's batch (0 in runs before it was recorded: a whole batch).
	FreshWarmup float64 `json:"fresh_warmup,omitempty"`
	// Until is --until: a case's rounds stopped once its headline
	// intervals were each at most this wide ((hi − lo) ÷ median).
	Until float64 `json:"until,omitempty"`
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
	// Host settings that move a lab's numbers (preflight.Env).
	Sysctls map[string]string `json:"sysctls,omitempty"` // vm.dirty_*
	THP     string            `json:"thp,omitempty"`     // transparent_hugepage enabled/defrag, the selected ones
	CPUFreq string            `json:"cpufreq,omitempty"` // governor and its min–max setting
	// CPUFreqNow is the current frequencies' range at the start: a
	// reading, not a setting, so the diff does not compare it.
	CPUFreqNow string       `json:"cpufreq_now,omitempty"`
	Cmdline    string       `json:"kernel_cmdline,omitempty"`
	Cgroup     *CgroupFacts `json:"cgroup,omitempty"`
	// Pressure is the pressure stall time over the run (deltas of PSI
	// total=): the host's and the workers' cgroup's.
	Pressure []Pressure `json:"pressure,omitempty"`
	Notes    []Note     `json:"notes,omitempty"`
}

// DirFacts describe the filesystem a work directory lives on.
type DirFacts struct {
	Dir string `json:"dir"`
	// FreshOf is the dir a --fresh-fs file system was made to match.
	FreshOf    string `json:"fresh_of,omitempty"`
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
	// FSOptions are the file system's options in effect, defaults
	// included (/proc/fs/ext4/<dev>/options: data=, commit=, barrier).
	FSOptions string `json:"fs_options,omitempty"`
	// Upper is, for an overlay, the upper layer's directory: FSType,
	// Source, Options, the journal and the queues are its file system's.
	Upper  string       `json:"overlay_upper,omitempty"`
	Queues []BlockQueue `json:"queues,omitempty"`
}

// BlockQueue is the block queue of one device under a work dir
// (/sys/block/<disk>/queue): the dir's own device first, then the
// devices below it.
type BlockQueue struct {
	Device       string `json:"device"`
	Scheduler    string `json:"scheduler,omitempty"`
	Rotational   string `json:"rotational,omitempty"`
	WriteCache   string `json:"write_cache,omitempty"`
	FUA          string `json:"fua,omitempty"`
	DiscardMax   string `json:"discard_max_bytes,omitempty"`
	DiscardGran  string `json:"discard_granularity,omitempty"`
	WbtLatUsec   string `json:"wbt_lat_usec,omitempty"`
	NrRequests   string `json:"nr_requests,omitempty"`
	ReadAheadKB  string `json:"read_ahead_kb,omitempty"`
	MaxSectorsKB string `json:"max_sectors_kb,omitempty"`
	BackingFile  string `json:"loop_backing_file,omitempty"`
	LoopDirectIO string `json:"loop_dio,omitempty"`
}

// CgroupFacts are the workers' cgroup (v2) and its limits.
type CgroupFacts struct {
	Path      string `json:"path"`
	CPUMax    string `json:"cpu_max,omitempty"`
	IOMax     string `json:"io_max,omitempty"`
	MemoryMax string `json:"memory_max,omitempty"`
}

// Pressure is one PSI resource's stall time over a run, in ns: "some"
// (at least one task stalled) and "full" (all non-idle tasks stalled).
type Pressure struct {
	Scope    string `json:"scope"`    // "host" or "cgroup"
	Resource string `json:"resource"` // cpu, io, memory
	SomeNs   uint64 `json:"some_ns"`
	FullNs   uint64 `json:"full_ns"`
	// WallNs is the time the deltas were taken over.
	WallNs uint64 `json:"wall_ns"`
}
