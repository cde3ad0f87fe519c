package sequence

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/reason"
	"zkspeaker/recoverable"
)

// Option changes a Sequence, a Persister, or the functions that manage
// sequences, from their defaults.
//
// Two settings come from the session instead, as in every recipe: the
// logger (recoverable.WithLogger) and the ACL of the znodes made, the
// root, the sequences and their markers, and the persistence processes'
// election (recoverable.WithACL). That ACL is open to everyone by default,
// as in the article; with recoverable.DigestACL only clients of that
// identity can take IDs or raise limits, and a stray client cannot set a
// sequence back and have IDs handed out twice. Znodes that exist already
// keep their ACL.
type Option func(*options)

type options struct {
	root     string
	election string
	wait     time.Duration
	block    int64
	name     string
	acl      []zk.ACL // the session's
	backoff  backoff
	mode     Mode
	log      *slog.Logger // the session's
}

// DefaultElection is where persistence processes stand for election.
const DefaultElection = "/seqid-persist"

// DefaultBlock is how many IDs a reservation covers: the persistence
// leader keeps the limit at least this far above the next ID, and raises
// it by two blocks when it is not. The article reserves 100 at a time.
const DefaultBlock = 1000

// MaxBlock is the largest reservation size, and MaxStart the largest first
// ID: far below the largest int64, so that no sum of them overflows.
const (
	MaxBlock = 1 << 40
	MaxStart = 1 << 60
)

// DefaultWait is how long Next waits for the limit to be raised.
const DefaultWait = 10 * time.Second

// WithRoot sets the znode under which sequences live (DefaultRoot).
func WithRoot(path string) Option { return func(o *options) { o.root = path } }

// WithElection sets the znode under which persistence processes stand for
// election (DefaultElection).
func WithElection(path string) Option { return func(o *options) { o.election = path } }

// WithWait sets how long Next waits for room below the limit before it
// fails with ErrNoRoom (DefaultWait).
func WithWait(d time.Duration) Option { return func(o *options) { o.wait = d } }

// WithBlock sets a reservation's size, for a Persister (DefaultBlock).
func WithBlock(n int64) Option { return func(o *options) { o.block = n } }

// WithName names a Persister in its election znode, for zkCli.sh and the
// logs (default: host:pid).
func WithName(name string) Option { return func(o *options) { o.name = name } }

// WithBackoff sets how long a worker waits after a lost compare-and-set
// before it tries again: between half and all of base, doubled with each
// loss in a row, up to max (DefaultBackoffBase, DefaultBackoffMax). A base
// of 0 retries at once, as the article does.
func WithBackoff(base, max time.Duration) Option {
	return func(o *options) { o.backoff = backoff{base: base, max: max} }
}

// newOptions applies opts to the defaults and the settings of the session
// of rz, and checks the result.
func newOptions(rz *recoverable.RecoverableZookeeper, opts []Option) (options, error) {
	o := options{root: DefaultRoot, election: DefaultElection, wait: DefaultWait, block: DefaultBlock, acl: rz.ACL(),
		backoff: backoff{base: DefaultBackoffBase, max: DefaultBackoffMax}, log: rz.Logger()}
	for _, opt := range opts {
		opt(&o)
	}
	if err := recoverable.ValidatePath("root", o.root); err != nil {
		return o, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err := recoverable.ValidatePath("election", o.election); err != nil {
		return o, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if o.wait <= 0 {
		return o, reason.New(ErrInvalid, "wait", "wait %s: want above 0", o.wait)
	}
	if o.backoff.base < 0 || o.backoff.max < o.backoff.base || o.backoff.max > time.Minute {
		return o, reason.New(ErrInvalid, "backoff", "backoff %s to %s: want 0 or more, at most a minute, the first no more than the second", o.backoff.base, o.backoff.max)
	}
	if _, err := ParseMode(string(o.mode.or())); err != nil {
		return o, err
	}
	if o.block < 1 || o.block > MaxBlock {
		return o, reason.New(ErrInvalid, "block", "block %d: want 1 to %d", o.block, int64(MaxBlock))
	}
	return o, nil
}

// ValidateName checks a sequence's name: one znode name, which is also a
// file name in a Store. Letters, digits, '.', '_' and '-', not starting
// with '.', at most 100 characters.
func ValidateName(name string) error {
	if name == "" || len(name) > 100 || name[0] == '.' {
		return reason.New(ErrInvalidName, "name", "%q: want 1 to 100 letters, digits, '.', '_' or '-', not starting with '.'", name)
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			return reason.New(ErrInvalidName, "name", "%q: want 1 to 100 letters, digits, '.', '_' or '-', not starting with '.'", name)
		}
	}
	return nil
}
