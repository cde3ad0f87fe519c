package election

import "time"

// checkRetries spaces out the retries of a failed election check, which
// are never given up: the candidate stays in the race for as long as it
// runs. The n-th retry waits 50 ms * 2^n, at most 5 s.
type checkRetries struct{ used int }

// newCheckRetries starts the count again, after a check that succeeded.
func newCheckRetries() *checkRetries { return &checkRetries{} }

// Backoff returns how long to wait before the next retry.
func (r *checkRetries) Backoff() time.Duration {
	const first, most = 100 * time.Millisecond, 5 * time.Second
	if r.used >= 6 { // 100 ms * 2^6 is past the cap already
		return most
	}
	return min(first<<r.used, most)
}

// UseRetry counts one retry.
func (r *checkRetries) UseRetry() { r.used++ }
