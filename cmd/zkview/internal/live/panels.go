package live

import (
	"context"
	"errors"
	"path"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/nodemonitor"
	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// followConfig follows a configuration's keys and their values.
func (h *Hub) followConfig(ctx context.Context, rz *recoverable.RecoverableZookeeper, p Panel) {
	f := &family[Key]{rz: rz, base: p.Path, read: readKey(rz)}
	f.publish = func(notified time.Time, exists bool, members []member[Key], err error) {
		c := &Config{Panel: p, Keys: []Key{}}
		c.Exists = exists
		if err != nil {
			c.Err = err.Error()
		}
		for _, m := range members {
			c.Keys = append(c.Keys, m.v)
		}
		h.update(notified, "config "+p.Path, func(pp *parts) { pp.config = c })
	}
	f.run(ctx)
}

// readKey reads one key of a configuration: its value is the znode's
// data. A missing key is read with no watch (see childRead).
func readKey(rz *recoverable.RecoverableZookeeper) childRead[Key] {
	return func(ctx context.Context, p string) (Key, bool, <-chan zk.Event, error) {
		data, st, wake, err := rz.GetW(ctx, p)
		if errors.Is(err, zk.ErrNoNode) {
			return Key{}, false, nil, nil
		}
		if err != nil {
			return Key{}, false, nil, err
		}
		return Key{Name: path.Base(p), Value: string(data), Version: st.Version}, true, wake, nil
	}
}

// followSequences follows the sequences and their persistence leader.
func (h *Hub) followSequences(ctx context.Context, rz *recoverable.RecoverableZookeeper, p Panel, election string) {
	f := &family[sequence.Info]{rz: rz, base: p.Path, read: readSequence(rz)}
	f.publish = func(notified time.Time, exists bool, members []member[sequence.Info], err error) {
		list := []Sequence{}
		for _, m := range members {
			list = append(list, Sequence{Name: m.name, Next: m.v.Next, Limit: m.v.Limit})
		}
		h.update(notified, "sequences "+p.Path, func(pp *parts) {
			s := sequencesOf(pp, p)
			s.Exists, s.List, s.Err = exists, list, ""
			if err != nil {
				s.Err = err.Error()
			}
		})
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.run(ctx)
	}()
	follow(ctx, func(ctx context.Context, notified time.Time) (<-chan zk.Event, error) {
		v, wake, err := nodemonitor.Inspect(ctx, rz, election)
		if err != nil {
			return nil, err
		}
		leader := ""
		if len(v.Seats) > 0 {
			leader = v.Seats[0].Data
		}
		h.update(notified, "persistence "+election, func(pp *parts) { sequencesOf(pp, p).Leader = leader })
		return wake, nil
	}, func(error) {})
	<-done
}

// sequencesOf is the sequences panel, made on first use; each change makes
// a new one, so that a Board already sent never changes under a page.
func sequencesOf(pp *parts, p Panel) *Sequences {
	s := &Sequences{Panel: p, List: []Sequence{}}
	if pp.sequences != nil {
		*s = *pp.sequences
	}
	pp.sequences = s
	return s
}

// readSequence reads one sequence; a missing one leaves no watch.
func readSequence(rz *recoverable.RecoverableZookeeper) childRead[sequence.Info] {
	return func(ctx context.Context, path string) (sequence.Info, bool, <-chan zk.Event, error) {
		info, wake, err := sequence.Inspect(ctx, rz, path)
		if errors.Is(err, sequence.ErrNotFound) {
			return info, false, nil, nil
		}
		return info, err == nil, wake, err
	}
}
