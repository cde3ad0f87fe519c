package nodemonitor

import "fmt"

// Rule says who blocks whom in the line of candidates: the one thing in
// which the sequential election, the lock, a shared lock and a semaphore
// differ. The engine does the rest (the protected create, the session's
// pauses and expiry, the policies), so a recipe states its Rule (WithRule)
// and gets all of it.
//
// A waiter watches exactly one znode, the one its Rule names, and checks
// again when it goes: so that no change wakes a herd, a Rule names a
// candidate whose leaving may let us lead, and Stand is a pure function of
// the line.
type Rule interface {
	// Prefix is the kind of our candidate: its znode's name before the
	// sequence number ZooKeeper appends. Lower-case letters ended by '_' or
	// '-', as "n_", "read-" or "write-". All kinds on one election path
	// share one sequence, so they stand in one line.
	Prefix() string
	// Stand decides for line[ours], in line sorted by sequence number with
	// every kind in it (Line): whether we lead, and if not, the name of the
	// one candidate ahead of us to watch. A candidate of a kind the Rule
	// does not know blocks nobody.
	Stand(line []Candidate, ours int) (lead bool, watch string)
}

// Exclusive is the default Rule, the ZooKeeper recipe's election and
// lock: candidates of kind Prefix stand in line, the first leads, and each
// other one waits for the one just ahead of it.
type Exclusive struct{}

// Prefix returns Prefix, "n_".
func (Exclusive) Prefix() string { return Prefix }

// Stand leads when no candidate of kind Prefix is ahead of ours, and
// watches the nearest one that is.
func (Exclusive) Stand(line []Candidate, ours int) (bool, string) {
	return LeadUnlessAhead(line, ours, func(c Candidate) bool { return c.Kind == Prefix })
}

// LeadUnlessAhead is the shape of most rules: we lead unless a candidate
// that blocks us is ahead of ours in line, and then we watch the nearest
// one. It asks blocks from the nearest candidate ahead to the first. A
// reader of a shared lock is blocked by writers alone; a writer, by
// everyone.
func LeadUnlessAhead(line []Candidate, ours int, blocks func(Candidate) bool) (bool, string) {
	for i := ours - 1; i >= 0; i-- {
		if blocks(line[i]) {
			return false, line[i].Name
		}
	}
	return true, ""
}

// checkRule refuses a Rule that cannot name candidates.
func checkRule(r Rule) error {
	if r == nil {
		return fmt.Errorf("%w: no rule", ErrInvalid)
	}
	if !validKind(r.Prefix()) {
		return fmt.Errorf("%w: rule %T: prefix %q (want lower-case letters ended by '_' or '-')", ErrInvalid, r, r.Prefix())
	}
	return nil
}
