package results

// ArmResult is everything measured for one arm × runtime × work dir ×
// parameter: every batch, traced or not, with the kernel records of the
// traced ones.
type ArmResult struct {
	Lab          string  `json:"lab"`
	Arm          string  `json:"arm"`
	Runtime      string  `json:"runtime"`
	Dir          string  `json:"dir"`
	PayloadBytes int     `json:"payload_bytes,omitempty"`
	SizeBytes    int     `json:"size_bytes,omitempty"`
	Ops          int     `json:"ops_per_batch"`
	Batches      []Batch `json:"batches"`
	Error        string  `json:"error,omitempty"`
	Stderr       string  `json:"stderr,omitempty"`
}

// Batch is one timed batch: Ops ops (modes) or one round (buffers). WallNs
// is timed by the worker between its markers.
type Batch struct {
	Phase   uint32        `json:"phase,omitempty"`
	Traced  bool          `json:"traced"`
	WallNs  int64         `json:"wall_ns"`
	Records []ClassRecord `json:"records,omitempty"`
}

// Key identifies an arm result across runs.
func (a *ArmResult) Key() string {
	return a.Lab + "/" + a.Arm + "/" + a.Runtime + "/" + a.Dir + "/" + a.Param()
}

// Param names the arm's parameter: payload for modes, size for buffers.
func (a *ArmResult) Param() string {
	if a.SizeBytes > 0 {
		return "size=" + Bytes(int64(a.SizeBytes))
	}
	return "payload=" + Bytes(int64(a.PayloadBytes))
}
