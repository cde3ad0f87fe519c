package config

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// maxRaces bounds how often one attempt of a write goes between set and
// create when another client keeps creating and deleting the key under it.
const maxRaces = 3

// Write sets key to value, creating the key's znode, and the base path, if
// they are missing: the chapter's ActiveKeyValueStore.write.
//
// Taken as a whole the write is idempotent: writing the same value twice
// leaves the key as writing it once does. So after a connection loss, when
// nobody can tell whether the write was applied, it is safe to write again.
// A Store made WithRetry does that itself, as the chapter's resilient write
// does; a plain one returns ErrConnectionLoss after one attempt. An expired
// session is returned as ErrSessionExpired either way: go-zookeeper carries
// on in a new session, and whether to carry on with it is the caller's call.
func (s *Store) Write(ctx context.Context, key, value string) error {
	path, err := s.Path(key)
	if err != nil {
		return err
	}
	if err := ValidateValue(value); err != nil {
		return err
	}
	data := []byte(value)
	if s.retry == nil {
		return s.writeOnce(ctx, path, data)
	}
	counter := s.retry.Create()
	for attempt := 1; ; attempt++ {
		err := s.writeOnce(ctx, path, data)
		if err == nil || !errors.Is(err, ErrConnectionLoss) {
			return err
		}
		if recoverable.NeverSent(err) {
			// No server took the request, so it cannot have landed:
			// waiting for one is no retry, however long the outage.
			s.log.Info("no server took the write, so it did not land; writing it once a server answers, which uses no retry",
				"key", key, "error", err)
			if err := s.rz.WaitConnected(ctx); err != nil {
				return err
			}
			continue
		}
		if !counter.ShouldRetry() {
			return fmt.Errorf("%w after %d attempts: %w", recoverable.ErrRetriesExhausted, attempt, err)
		}
		s.log.Info("the write lost its connection and may or may not have landed; writing again, which is safe",
			"key", key, "retry", fmt.Sprintf("%d of %d", counter.AttemptTimes(), counter.MaxRetries()),
			"wait", counter.Backoff(), "error", err)
		if err := counter.SleepUntilNextRetry(ctx); err != nil {
			return err
		}
		counter.UseRetry()
	}
}

// writeOnce is one attempt of the write. The chapter asks exists first and
// then creates or sets; trying the set first saves that round trip whenever
// the key is there already, which is nearly always, and is just as
// idempotent. Each step that meets another client's change (or that of
// an earlier attempt of ours whose reply was lost) moves on to the other.
func (s *Store) writeOnce(ctx context.Context, path string, data []byte) error {
	for races := 0; ; races++ {
		_, err := s.rz.Set(ctx, path, data, -1) // -1: whatever the version
		if !errors.Is(err, zk.ErrNoNode) {
			return classify(err)
		}
		_, err = s.rz.Create(ctx, path, data, s.acl)
		if errors.Is(err, zk.ErrNoNode) {
			// No base path yet: this is the first write of all.
			if err := s.rz.EnsurePath(ctx, s.base, s.acl); err != nil {
				return classify(err)
			}
			_, err = s.rz.Create(ctx, path, data, s.acl)
		}
		if !errors.Is(err, zk.ErrNodeExists) || races == maxRaces {
			return classify(err)
		}
		// Created since our set failed, by someone else or by a create of
		// ours whose reply was lost: set it after all.
	}
}

// Delete removes key. Like Write it is idempotent: a key that is already
// gone is not an error, so a delete whose reply was lost may be made again.
// Watchers see the key vanish (Value.Exists is false).
func (s *Store) Delete(ctx context.Context, key string) error {
	path, err := s.Path(key)
	if err != nil {
		return err
	}
	if err := s.rz.Delete(ctx, path, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return classify(err)
	}
	return nil
}
