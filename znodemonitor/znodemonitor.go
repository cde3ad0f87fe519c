// Package znodemonitor holds the articles' ZNodeMonitor: single-file leader
// election. Every candidate tries to create the same ephemeral znode; the
// one that succeeds leads, and the others watch it and try again when it is
// deleted.
//
// It is simpler than nodemonitor's sequential recipe, and it pays for it:
// each deletion wakes every waiting candidate (the herd), and the next
// leader is whoever wins the race, not whoever waited longest. The handling
// of the session (paused, expired, reconnected) and the two policies are
// the election engine's, shared with nodemonitor, whose Monitor, states,
// policies and errors New's candidate has.
package znodemonitor

import (
	"time"

	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
)

// New starts a candidate of the single-file election for the znode
// DefaultPath (unless WithPath says otherwise), on the session of rz, that
// tells listener when to speak. It returns at once; the candidate races as
// soon as there is a session. Its Monitor is nodemonitor's, with the same
// states, policies and errors (nodemonitor.StateActive,
// nodemonitor.AtMostOne, nodemonitor.ErrPausedResign, ...); a bad option
// is a nodemonitor.ErrInvalid. Its znodes carry the session's ACL
// (recoverable.WithACL), and it logs to the session's logger
// (recoverable.WithLogger), as nodemonitor.New does.
func New(rz *recoverable.RecoverableZookeeper, listener nodemonitor.Listener, opts ...Option) (*nodemonitor.Monitor, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	log := rz.Logger()
	r := &singleFile{zk: rz, path: cfg.path, data: []byte(listener.ProcessName()), acl: rz.ACL(), log: log}
	return nodemonitor.Start(rz, listener, r, cfg.policy, log, ResignPause), nil
}

// ResignPause is how long a resigned Monitor waits before it races for the
// znode again. Everyone else is woken by the delete and creates at once; a
// re-create of ours sent at once could win again before any of them, and
// the resignation would hand over nothing. A notification and a create
// take milliseconds; this leaves room for a loaded machine. With nobody
// else standing, the resigned Monitor leads again after it.
const ResignPause = time.Second
