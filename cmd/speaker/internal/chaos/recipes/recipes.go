// Package recipes registers every recipe's soak with the chaos core, in
// the order --recipe lists them: the one place that names them all. A new
// recipe's soak is a package of its own beside the others, and a line here.
package recipes

import (
	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/barrier"
	"zkspeaker/cmd/speaker/internal/chaos/config"
	"zkspeaker/cmd/speaker/internal/chaos/group"
	"zkspeaker/cmd/speaker/internal/chaos/lock"
	"zkspeaker/cmd/speaker/internal/chaos/program"
	"zkspeaker/cmd/speaker/internal/chaos/queue"
	"zkspeaker/cmd/speaker/internal/chaos/rwlock"
	"zkspeaker/cmd/speaker/internal/chaos/semaphore"
	"zkspeaker/cmd/speaker/internal/chaos/seqid"
	"zkspeaker/cmd/speaker/internal/chaos/speaker"
)

func init() {
	chaos.Register(speaker.Recipe, lock.Recipe, rwlock.Recipe, semaphore.Recipe, group.Recipe, config.Recipe, seqid.Recipe, barrier.Recipe, queue.Recipe, program.Recipe)
}
