package explain

// EnvChange is one fact of the environment that differs between two runs:
// a mount option, a block queue setting, a sysctl, the Python version.
type EnvChange struct {
	Name string `json:"name"`
	Old  string `json:"old"`
	New  string `json:"new"`
	// Added and Removed are, for a list of options, what NEW has that OLD
	// had not, and what OLD had that NEW has not.
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
}
