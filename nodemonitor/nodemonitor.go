// Package nodemonitor holds the articles' NodeMonitor: the sequential leader
// election of the ZooKeeper recipes, where each candidate owns an
// EPHEMERAL|SEQUENTIAL znode under /election, the lowest one leads, and every
// other one watches only its predecessor, so that no change wakes a herd.
//
// The handling of the session (paused, expired, reconnected) and the two
// policies are the election engine's, which znodemonitor's single-file
// election runs on too. Both return this package's Monitor, and its
// states, policies and errors are named here alone (monitor.go).
package nodemonitor

import (
	"time"

	"zkspeaker/recoverable"
)

// New starts a candidate of the sequential election at the election path
// (DefaultPath unless WithPath says otherwise), on the session of rz, that
// tells listener when to speak. It returns at once; the candidate joins as
// soon as there is a session. Its znodes carry the session's ACL
// (recoverable.WithACL), and it logs its state changes to the session's
// logger (recoverable.WithLogger): a caller that wants its lines to carry
// a name gives the session a logger with that attribute.
func New(rz *recoverable.RecoverableZookeeper, listener Listener, opts ...Option) (*Monitor, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	log := rz.Logger()
	r := &sequential{zk: rz, path: cfg.path, data: []byte(listener.ProcessName()), acl: rz.ACL(), watch: cfg.watch, rule: cfg.rule, log: log}
	return Start(rz, listener, r, cfg.policy, log, ResignRejoin), nil
}

// ResignRejoin is how long a resigned Monitor waits before it joins again
// at the back of the line: its create, sent at once, would reach the
// servers in the middle of the successor's round trip and delay it, as a
// session closed at once would (speaker waits as long to close its own).
// A handover on one machine takes a few milliseconds.
const ResignRejoin = 100 * time.Millisecond
