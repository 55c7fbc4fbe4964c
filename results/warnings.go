package results

// WarningKind says what a warning records. A warning is a fact that
// changes what the numbers mean (a tmpfs's fsync returns at once); like a
// note it is stored as data and worded when a report is written
// (results/report), so run.json keeps what was found, not one wording
// of it.
type WarningKind string

const (
	// WarningTmpfs: Dir is a tmpfs: fsync returns at once, no block I/O.
	WarningTmpfs WarningKind = "tmpfs"
	// WarningNoJournal: Dir is an ext4 without a journal: no commits,
	// and a create skips recently deleted inodes.
	WarningNoJournal WarningKind = "no journal"
	// WarningOverlay: Dir is an overlay, its files written in Upper, a
	// FSType, which is what is measured.
	WarningOverlay WarningKind = "overlay"
	// WarningNoBlockDevice: no block device was found under Dir, a
	// FSType: its block I/O cannot be matched to syscalls.
	WarningNoBlockDevice WarningKind = "no block device"
	// WarningDiscard: Dir is mounted with discard.
	WarningDiscard WarningKind = "discard"
	// WarningWriteThrough: Dir's device has no volatile write cache.
	WarningWriteThrough WarningKind = "write through"
	// WarningHostBusy: the host's load (Load) was over half its CPUs.
	WarningHostBusy WarningKind = "host busy"
	// WarningStateDominates: in the group of Group, Arms of Of compared
	// arms' ratios moved with State across the run.
	WarningStateDominates WarningKind = "state dominates"
	// WarningText: a warning saved as words, by a tmpprobe before
	// warnings were typed (What).
	WarningText WarningKind = "text"
)

// Warning is one typed warning: its kind and the fields the kind names.
type Warning struct {
	Kind   WarningKind `json:"kind"`
	Dir    string      `json:"dir,omitempty"`
	FSType string      `json:"fs_type,omitempty"`
	Upper  string      `json:"upper,omitempty"`
	Load   float64     `json:"load,omitempty"`
	CPUs   int         `json:"cpus,omitempty"`
	// Group is a case of the group a state dominates.
	Group *CaseID `json:"group,omitempty"`
	State string  `json:"state,omitempty"`
	Arms  int     `json:"arms,omitempty"`
	Of    int     `json:"of,omitempty"`
	What  string  `json:"what,omitempty"`
}

// UnmarshalJSON reads a warning, or one saved as words by an earlier
// tmpprobe (a JSON string) as a WarningText.
func (w *Warning) UnmarshalJSON(b []byte) error {
	type plain Warning // without this method
	return unmarshalTyped(b, (*plain)(w), func(words string) { *w = Warning{Kind: WarningText, What: words} })
}
