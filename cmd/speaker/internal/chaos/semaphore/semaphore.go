// Package semaphore is the chaos soak of zklock's semaphore: contenders
// with `zklock --leases 2` on one path, each in a loop as the lock's
// contenders are (package lock): wait for a lease, hold it while CMD
// (`speaker chaos-work`) writes a line every interval, release, again. At
// most two CMDs may write at once; a third is a lease too many.
package semaphore

import (
	"context"
	"fmt"
	"strconv"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/lock"
)

// Name is the recipe's name, the value of --recipe.
const Name = "semaphore"

// Leases is the semaphore's N: two, so that holders overlap and a third
// contender, at least, waits.
const Leases = 2

// root is the semaphore's znode; its contenders queue under root/gate and
// hold their leases under root/leases (recipes/lock/semaphore.go).
const root = "/chaos-semaphore"

// TooMany heads the checker's finding: more CMDs at once than leases.
const TooMany = "more CMDs at once than leases"

// Gate heads the finding of a contender's znode left at the gate.
const Gate = "left at the gate"

// Recipe is the semaphore's soak, as the core runs and checks it.
var Recipe = recipe()

func recipe() chaos.Recipe {
	r := lock.Contenders(Name, root, func(*chaos.Config, string) []string {
		return []string{"--leases", strconv.Itoa(Leases)}
	})
	// Each lease has its own epoch: one cannot fence them
	// (lock.DeletedWhileAway), so the soak runs without.
	r.Settle = func(c *chaos.Config) { c.Election, c.Fence = "sequential", false }
	// The operator's deletes and the leak check take the leases: the
	// first lease's znode is a holder's, and the path's own znode, which
	// records N, and its gate and leases folders stay by design.
	r.Path = func(*chaos.Config) string { return root + "/leases" }
	r.Layout = func(*chaos.Config) chaos.Layout { return chaos.Layout{AnyNames: true} }
	r.Check = func(c *chaos.Config) error {
		if c.Speakers <= Leases {
			return fmt.Errorf("%w: --speakers must be above %d for --recipe semaphore, whose %d leases would otherwise never all be taken", chaos.ErrConfig, Leases, Leases)
		}
		return nil
	}
	r.Begin = begin
	r.Summary = func(in chaos.Input, rep chaos.Report) string {
		return fmt.Sprintf("lines of CMD %d, leases held %d, most CMDs at once %d of %d, contenders that held a lease %d",
			rep.Lines, len(held(in)), most(in), Leases, len(rep.Writers))
	}
	r.Checker = &chaos.Checker{
		Check:     check,
		NotLooked: fmt.Sprintf("overlaps: up to %d CMDs may write at once, one a lease", Leases),
	}
	return r
}

// begin keeps the operator's client for the look at the gate at the end.
func begin(_ context.Context, env *chaos.Env) (*chaos.Running, error) {
	cfg := env.Config()
	return &chaos.Running{Record: func() any { return leftAtGate(env, cfg.Session) }}, nil
}
