package lock

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/nodemonitor"
)

// ErrLeases is wrapped by Lock's error, a *LeasesError, when the lock's
// path records another number of leases than ours: every contender of a
// semaphore must agree.
var ErrLeases = errors.New("lock: the path records another number of leases")

// LeasesError says which number of leases the path records.
type LeasesError struct {
	Path     string
	Recorded string // as the path's znode holds it, "2"; "" for a lock's path
	Ours     int    // 0 for a read or write lock on a semaphore's path
}

func (e *LeasesError) Error() string {
	if e.Recorded == "" {
		return fmt.Sprintf("%v: %s is a lock that readers or writers hold or wait for, not a semaphore", ErrLeases, e.Path)
	}
	if e.Ours == 0 {
		return fmt.Sprintf("%v: %s is a semaphore that admits %s at once, not a lock", ErrLeases, e.Path, e.Recorded)
	}
	return fmt.Sprintf("%v: %s admits %s at once, not %d", ErrLeases, e.Path, e.Recorded, e.Ours)
}

// Unwrap makes the error ErrLeases.
func (e *LeasesError) Unwrap() error { return ErrLeases }

// A semaphore of N leases cannot be a line in which each waiter watches one
// znode ahead of it: with the line a b c and two leases, c watching a is
// never told when b leaves first. So it is two lines under the path, as in
// Curator's InterProcessSemaphoreV2: contenders queue on an exclusive lock,
// gate, each watching the one just ahead; the gate's holder alone watches
// the leases' children, takes a lease as soon as fewer than N stand, and
// passes the gate on. Every change of the leases wakes one process, and
// any lease that goes, not one chosen in advance, lets the next one in.
const (
	gateDir   = "gate"
	leasesDir = "leases"
	// leasePrefix names a lease's znode under leasesDir.
	leasePrefix = "lease-"
	// leasesRecord starts the path's data that records N: "leases=2".
	leasesRecord = "leases="
)

// leaseRule holds a lease when fewer than n leases stand ahead of ours.
// The gate admits a contender only when fewer than n stand, so a lease
// holds at once; should more ever stand (a gate holder that lost its gate
// while it created its lease), the rule still admits no more than n, and
// the extra one waits for the lease just ahead, which its holder ends.
type leaseRule struct{ n int }

// Prefix is a lease's kind, "lease-".
func (leaseRule) Prefix() string { return leasePrefix }

// Stand holds within the first n, and otherwise watches the one just ahead.
func (r leaseRule) Stand(line []nodemonitor.Candidate, ours int) (bool, string) {
	ahead := 0
	for i := 0; i < ours; i++ {
		if line[i].Kind == leasePrefix {
			ahead++
		}
	}
	if ahead < r.n {
		return true, ""
	}
	return nodemonitor.LeadUnlessAhead(line, ours, func(c nodemonitor.Candidate) bool { return c.Kind == leasePrefix })
}

// admit records the number of leases at the lock's path, or checks it
// against the one recorded, takes the gate, and returns it held once fewer
// leases than ours stand: the caller takes its lease, then unlocks the gate.
// A gate lost while we wait at it (our session expired) cost us no lease:
// we queue at the gate again, as a plain lock's waiter stands again.
func (l *Lock) admit(ctx context.Context) (*Lock, error) {
	if err := l.recordLeases(ctx); err != nil {
		return nil, err
	}
	for {
		gate := New(l.rz, l.root+"/"+gateDir, l.name, WithPolicy(l.policy))
		if err := gate.Lock(ctx); err != nil {
			return nil, err
		}
		err := l.awaitLease(ctx, gate)
		if !errors.Is(err, errGateLost) {
			return gate, err
		}
		_ = gate.Unlock(context.WithoutCancel(ctx)) // ends its monitor; its znode went with the session
		l.rz.Logger().Info("lost the gate with our session while waiting for a lease; queueing at the gate again", "leases", l.leases)
	}
}

// errGateLost is awaitLease's word that the gate was lost under us.
var errGateLost = errors.New("lock: the gate was lost")

// awaitLease waits, holding the gate, until fewer leases than ours stand.
// On any error but errGateLost the gate has been unlocked.
func (l *Lock) awaitLease(ctx context.Context, gate *Lock) error {
	leases := l.root + "/" + leasesDir
	told := false // that we wait, in the log
	for {
		children, wake, err := l.rz.ChildrenW(ctx, leases)
		if errors.Is(err, zk.ErrNoNode) {
			err = l.rz.EnsurePath(ctx, leases, l.rz.ACL())
			if err == nil {
				continue
			}
		}
		if err != nil {
			return errors.Join(fmt.Errorf("lock: leases of %s: %w", l.root, err), gate.Unlock(context.WithoutCancel(ctx)))
		}
		if len(nodemonitor.Line(children)) < l.leases {
			return nil
		}
		if !told {
			l.rz.Logger().Info("every lease is taken; waiting at the gate for one to go", "leases", l.leases, "watching", leases)
			told = true
		}
		select {
		case <-wake:
		case <-gate.Done():
			return errGateLost
		case <-l.h.done:
			return errors.Join(ErrUnlocked, gate.Unlock(context.WithoutCancel(ctx)))
		case <-ctx.Done():
			return errors.Join(ctx.Err(), gate.Unlock(context.WithoutCancel(ctx)))
		}
	}
}

// recordLeases writes "leases=N" into the lock's znode, if it records
// nothing yet, and otherwise checks that it records our N. A path where
// readers or writers stand is refused, before the write and after it: a
// Lock there checks for the record once its own znode stands (Lock), so
// that of a write lock's create and our record, whichever ZooKeeper
// orders second sees the other, and the two never hold at once.
func (l *Lock) recordLeases(ctx context.Context) error {
	want := leasesRecord + strconv.Itoa(l.leases)
	if err := l.rz.EnsurePath(ctx, l.root, l.rz.ACL()); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	for {
		data, st, err := l.rz.Get(ctx, l.root)
		if err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		switch got := string(data); {
		case got == want:
			return l.refuseLock(ctx)
		case got != "":
			n, _ := strings.CutPrefix(got, leasesRecord)
			return &LeasesError{Path: l.root, Recorded: n, Ours: l.leases}
		}
		if err := l.refuseLock(ctx); err != nil {
			return err // nothing written
		}
		_, err = l.rz.Set(ctx, l.root, []byte(want), st.Version)
		if err != nil && !errors.Is(err, zk.ErrBadVersion) {
			return fmt.Errorf("lock: %w", err)
		}
		// Written, or another contender wrote first: read again and compare.
	}
}

// refuseLock fails with a *LeasesError when readers or writers stand at
// the semaphore's path: our leases would stand in no line of theirs.
func (l *Lock) refuseLock(ctx context.Context) error {
	children, err := l.rz.Children(ctx, l.root)
	if err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	if len(nodemonitor.Line(children)) > 0 {
		return &LeasesError{Path: l.root, Ours: l.leases}
	}
	return nil
}

// refuseSemaphore fails with a *LeasesError when the lock's path records
// a number of leases: its contenders queue under gate and leases, where a
// read or write lock's znode would stand in no line of theirs, and both
// would hold at once.
func (l *Lock) refuseSemaphore(ctx context.Context) error {
	// An exists first: a lock's path holds no data, so a lock pays no
	// read of it (and its one read stays the holder's watch).
	ok, st, err := l.rz.Exists(ctx, l.root)
	if err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	if !ok || st.DataLength == 0 {
		return nil
	}
	data, _, err := l.rz.Get(ctx, l.root)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	if _, ok := recordedLeases(data); ok {
		n, _ := strings.CutPrefix(string(data), leasesRecord)
		return &LeasesError{Path: l.root, Recorded: n}
	}
	return nil
}

// admitted checks our number of leases and waits at the gate (admit); it
// returns the gate held, for Lock to unlock once it holds its lease.
func (l *Lock) admitted(ctx context.Context) (*Lock, error) {
	if l.leases < 1 {
		return nil, fmt.Errorf("lock: %w: %d leases (want 1 or more)", nodemonitor.ErrInvalid, l.leases)
	}
	gate, err := l.admit(ctx)
	if err == nil && l.h.states.Current().final() {
		err = errors.Join(ErrUnlocked, gate.Unlock(context.WithoutCancel(ctx))) // Unlock came while we took the gate
	}
	return gate, err
}

// unlockGate passes the gate on, waiting at most a session timeout: cut
// off for longer, our session expires, and the gate's znode with it.
func unlockGate(gate *Lock, within time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	_ = gate.Unlock(ctx)
}
