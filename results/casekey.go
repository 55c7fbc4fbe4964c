package results

// A CaseID is comparable: it is the key that pairs a case across runs
// and groups the cases a lab compares, as a map key or with ==, never a
// string built to be read. The keys below are CaseIDs with a field set
// aside.

// At is the case with its work dir named dir: runs that used other dirs
// pair their cases by the dir's place in each run instead.
func (a CaseID) At(dir string) CaseID {
	a.Dir = dir
	return a
}

// Peer is the group the case is compared in (PeerGroups): the same lab,
// runtime, dir and parameter, whatever the arm.
func (a CaseID) Peer() CaseID {
	a.Arm = ""
	return a
}
