package recoverable

import "sync"

// retryCount counts the retries of each operation, by its name: how often
// a lost connection made the session try one again, for an operator's
// dashboard (the commands' --metrics).
type retryCount struct {
	mu sync.Mutex
	by map[string]int64
}

func (c *retryCount) note(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil {
		c.by = map[string]int64{}
	}
	c.by[op]++
}

// Retries returns how many times each operation ("create", "get",
// "multi", ...) has been tried again after a lost connection, over the
// client's life.
func (r *RecoverableZookeeper) Retries() map[string]int64 {
	r.retries.mu.Lock()
	defer r.retries.mu.Unlock()
	out := make(map[string]int64, len(r.retries.by))
	for op, n := range r.retries.by {
		out[op] = n
	}
	return out
}
