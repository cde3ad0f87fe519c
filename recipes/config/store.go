// Package config is the configuration service of the ZooKeeper chapter of
// "Hadoop: The Definitive Guide": a Store that keeps string values in
// znodes, one znode per key under a base path (/config/colour for the key
// colour), and lets clients follow a key as it changes.
//
// Store.Write is the chapter's ActiveKeyValueStore.write: it creates the
// znode or sets it, and is idempotent, so that a write whose connection
// dropped can simply be written again (WithRetry). Store.ReadW is its
// read with a watch: a value, and a channel that fires once at the next
// change, as every ZooKeeper watch does. Store.Watch is the chapter's
// ConfigWatcher: it sets the watch again after every event and reads the
// key again, across reconnects and session expiries.
//
// The chapter assumes one writer at a time (a master telling its workers);
// so does this package. Two writers do no harm to the znodes, but the last
// write wins.
package config

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// Store is a key-value store in ZooKeeper: the chapter's ActiveKeyValueStore.
// It holds no state of its own besides its settings, so one Store may be
// used by many goroutines at once; its session is the RecoverableZookeeper
// it was made with, which its owner closes.
type Store struct {
	rz    *recoverable.RecoverableZookeeper
	base  string
	acl   []zk.ACL
	retry *recoverable.RetryCounterFactory // nil: each write is tried once
	log   *slog.Logger
}

// Option configures a Store.
type Option func(*options)

type options struct {
	base  string
	retry *recoverable.RetryCounterFactory
}

// WithBase sets the znode under which keys live (DefaultBase otherwise). It
// is created, with its parents, by the first Write.
func WithBase(path string) Option { return func(o *options) { o.base = path } }

// WithRetry makes Write resilient, as in the chapter's second version of
// write: after a connection loss the whole write is tried again, with the
// backoff of a RetryCounter made by f, until it lands or the retries run
// out. A write that no server took (go-zookeeper found none while it was
// queued, see recoverable.NeverSent) cannot have landed: it waits for a
// server and uses no retry, so an outage of any length, a lost quorum
// included, spends none. Without WithRetry a Write makes one attempt and
// returns ErrConnectionLoss. Only the connection loss is retried: an expired session is the caller's
// to handle (see ErrSessionExpired).
func WithRetry(f recoverable.RetryCounterFactory) Option {
	return func(o *options) { o.retry = &f }
}

// New returns a Store on the session of rz. It sends nothing to ZooKeeper:
// the base path is created by the first Write. It fails with
// ErrInvalidPath for a bad WithBase. The znodes it creates, the keys and
// the base path, carry the session's ACL (recoverable.WithACL: the
// chapter's open one by default, recoverable.DigestACL to keep them to one
// identity), and it logs the retries of Write and the re-reads of Watch
// to the session's logger.
func New(rz *recoverable.RecoverableZookeeper, opts ...Option) (*Store, error) {
	o := options{base: DefaultBase}
	for _, opt := range opts {
		opt(&o)
	}
	if err := ValidateBase(o.base); err != nil {
		return nil, err
	}
	return &Store{rz: rz, base: o.base, acl: rz.ACL(), retry: o.retry, log: rz.Logger()}, nil
}

// Done is closed when the Store's client is closed: the Store, and every
// Watch on it, ends then, and Err says so. Nothing else ends a Store: it
// outlives every other fault, retrying or reporting each to its caller.
func (s *Store) Done() <-chan struct{} { return s.rz.Done() }

// Err is recoverable.ErrClosed once Done is closed, nil before.
func (s *Store) Err() error {
	select {
	case <-s.rz.Done():
		return recoverable.ErrClosed
	default:
		return nil
	}
}

// Base returns the znode under which the keys live.
func (s *Store) Base() string { return s.base }

// Path returns the znode of key, or ErrInvalidKey.
func (s *Store) Path(key string) (string, error) {
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	return s.base + "/" + key, nil
}

// Value is what one read of a key found.
type Value struct {
	// Key is the key read.
	Key string
	// Exists is false when the key has no znode: never written, or deleted.
	Exists bool
	// Data is the value, "" when the key does not exist.
	Data string
	// Zxid is the ZooKeeper transaction that wrote Data (the znode's mzxid).
	// Every write has its own, larger than any before it, even one that
	// writes the same data again: it tells two writes apart and orders them.
	Zxid int64
	// Version counts the writes of Data since the key was created.
	Version int32
	// Modified is when the write was applied, by the servers' clocks.
	Modified time.Time
}

// valueOf is the Value of an existing znode.
func valueOf(key string, data []byte, st *zk.Stat) Value {
	return Value{Key: key, Exists: true, Data: string(data), Zxid: st.Mzxid, Version: st.Version,
		Modified: time.UnixMilli(st.Mtime)}
}

// Read returns the value of key, or an error that errors.Is matches to
// ErrNotFound when the key does not exist. It makes one attempt (beyond the
// retries of the RecoverableZookeeper itself): a read is idempotent, so a
// caller may simply call it again after ErrConnectionLoss.
func (s *Store) Read(ctx context.Context, key string) (string, error) {
	path, err := s.Path(key)
	if err != nil {
		return "", err
	}
	data, _, err := s.rz.Get(ctx, path)
	if errors.Is(err, zk.ErrNoNode) {
		return "", fmt.Errorf("%w: %s (%s)", ErrNotFound, key, path)
	}
	if err != nil {
		return "", classify(err)
	}
	return string(data), nil
}

// ReadW reads key and leaves a watch on it: the chapter's read(path,
// watcher). The channel receives one event at the key's next change
// (written, created or deleted), or zk.EventNotWatching when the session
// that set the watch ends; then it is closed. It never fires twice: to
// follow a key, read it again after each event, or use Watch.
//
// A key that does not exist is not an error here: the Value says so
// (Exists is false), and the channel fires when the key is created.
func (s *Store) ReadW(ctx context.Context, key string) (Value, <-chan zk.Event, error) {
	path, err := s.Path(key)
	if err != nil {
		return Value{Key: key}, nil, err
	}
	for {
		data, st, changed, err := s.rz.GetW(ctx, path)
		if err == nil {
			return valueOf(key, data, st), changed, nil
		}
		if !errors.Is(err, zk.ErrNoNode) {
			return Value{Key: key}, nil, classify(err)
		}
		// A data watch cannot be set on a missing znode; an exists watch
		// can, and fires when the key is created.
		ok, _, created, err := s.rz.ExistsW(ctx, path)
		if err != nil {
			return Value{Key: key}, nil, classify(err)
		}
		if !ok {
			return Value{Key: key}, created, nil
		}
		// Created between the two requests: read it. The exists watch we
		// just set fires once at its next change, into a buffered channel
		// nobody reads, and is dropped.
	}
}
