package chaos

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
	"zkspeaker/speaker"
)

// operator is the person at the keyboard during a soak: a ZooKeeper session
// of its own, straight to the servers, for the deletes an operator makes
// by hand and for looking at what is left at the end.
type operator struct {
	zk   *recoverable.RecoverableZookeeper
	path string // the election path
	out  string // the out file
}

func newOperator(servers []string, path, out string) (*operator, error) {
	rz, err := recoverable.Connect(servers, 10*time.Second, recoverable.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		return nil, err
	}
	return &operator{zk: rz, path: path, out: out}, nil
}

// leader names the speaker that wrote the out file's last line: the one
// that leads, or led until a moment ago.
func (o *operator) leader() string {
	f, err := os.Open(o.out)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return ""
	}
	start := max(st.Size()-4096, 0)
	buf := make([]byte, st.Size()-start)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	buf = bytes.TrimRight(buf, "\n")
	l, err := speaker.ParseLine(string(buf[bytes.LastIndexByte(buf, '\n')+1:]))
	if err != nil {
		return ""
	}
	return l.Name
}

// deleteLeader deletes the leading znode by hand: the lowest candidate of
// the sequential election, or the single file. It returns what it deleted.
func (o *operator) deleteLeader(ctx context.Context, sequential bool) (string, error) {
	if !sequential {
		return o.path, ignoreNoNode(o.zk.Delete(ctx, o.path, -1))
	}
	children, err := o.zk.Children(ctx, o.path)
	if err != nil {
		return "", ignoreNoNode(err)
	}
	cands := nodemonitor.Candidates(children)
	if len(cands) == 0 {
		return "", nil
	}
	node := o.path + "/" + cands[0].Name
	return node, ignoreNoNode(o.zk.Delete(ctx, node, -1))
}

// deletePath deletes the election path and everything under it at once,
// in one multi: the candidates cannot rejoin in between, as they would
// between the single deletes of zkCli's deleteall. A candidate that joins
// before the multi fails it (not empty); then it lists and tries again.
func (o *operator) deletePath(ctx context.Context) error {
	for attempt := 0; attempt < 20 && ctx.Err() == nil; attempt++ {
		children, err := o.zk.Children(ctx, o.path)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return err
		}
		ops := make([]any, 0, len(children)+1)
		for _, c := range children {
			ops = append(ops, &zk.DeleteRequest{Path: o.path + "/" + c, Version: -1})
		}
		ops = append(ops, &zk.DeleteRequest{Path: o.path, Version: -1})
		if _, err = o.zk.Conn().Multi(ops...); err == nil {
			return nil
		}
	}
	return fmt.Errorf("chaos: %s kept changing under the delete", o.path)
}

// leftovers lists the candidate znodes still there, waiting up to wait for
// the sessions of killed speakers to expire: those are the servers' to
// clean, and a leak only if they stay.
func (o *operator) leftovers(ctx context.Context, sequential bool, wait time.Duration) ([]string, error) {
	deadline := time.Now().Add(wait)
	for {
		var left []string
		if sequential {
			children, err := o.zk.Children(ctx, o.path)
			if err != nil && !errors.Is(err, zk.ErrNoNode) {
				return nil, err
			}
			for _, c := range nodemonitor.Candidates(children) {
				left = append(left, o.path+"/"+c.Name)
			}
		} else {
			ok, _, err := o.zk.Exists(ctx, o.path)
			if err != nil {
				return nil, err
			}
			if ok {
				left = append(left, o.path)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (o *operator) close() { o.zk.Close() }

func ignoreNoNode(err error) error {
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	return err
}
