package lock

import "zkspeaker/nodemonitor"

// readPrefix names a reader's znode: "_c_<guid>-read-0000000007". A
// writer's keeps the exclusive lock's name, nodemonitor.Prefix ("n_"), so
// that a plain Lock is the write lock, with no change for the lock's
// existing users: an older zklock, which knows only "n_", still excludes
// the writers of this one (readers need every contender on the path to
// know them), and the tools that list a lock's line still see its writers.
const readPrefix = "read-"

// writer is the rule of the write lock, the plain Lock: it is blocked by
// every contender ahead of it, reader or writer, and watches the one just
// ahead, as the exclusive lock always did.
type writer struct{}

// Prefix is the exclusive lock's kind, "n_".
func (writer) Prefix() string { return nodemonitor.Prefix }

// Stand holds when no contender is ahead, and watches the one just ahead.
func (writer) Stand(line []nodemonitor.Candidate, ours int) (bool, string) {
	return nodemonitor.LeadUnlessAhead(line, ours, func(c nodemonitor.Candidate) bool {
		return isWriter(c) || c.Kind == readPrefix
	})
}

// reader is the rule of the read lock (Shared): as in the ZooKeeper
// recipe, it is blocked by writers alone, and watches the nearest writer
// ahead of it. Readers behind no writer hold at once, together; a reader
// behind a waiting writer waits for it, so that a stream of readers cannot
// starve a writer.
type reader struct{}

// Prefix is the reader's kind, "read-".
func (reader) Prefix() string { return readPrefix }

// Stand holds when no writer is ahead, and watches the nearest one.
func (reader) Stand(line []nodemonitor.Candidate, ours int) (bool, string) {
	return nodemonitor.LeadUnlessAhead(line, ours, isWriter)
}

// isWriter reports whether c holds or wants the lock alone.
func isWriter(c nodemonitor.Candidate) bool { return c.Kind == nodemonitor.Prefix }
