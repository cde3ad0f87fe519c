package chaos

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
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
	servers []string
	path    string // the election path
	out     string // the out file
	// leaderByZnode names the leader by the lowest candidate's znode, not
	// by the out file's last line (which a process that does not lead may
	// write).
	leaderByZnode bool
	// members says the children are the processes' own, each of them ours,
	// rather than election candidates among other znodes.
	members bool
	// anyNames says the children are a program's of its own naming, in
	// line by their sequence numbers (Layout.AnyNames).
	anyNames bool

	mu sync.Mutex
	zk *recoverable.RecoverableZookeeper
}

func newOperator(servers []string, path, out string) (*operator, error) {
	o := &operator{servers: servers, path: path, out: out}
	return o, o.reconnect()
}

// reconnect gives the operator a new client: after ZooKeeper lost all its
// data, the servers refuse a client that has seen a later transaction than
// theirs, and go-zookeeper would try them forever.
func (o *operator) reconnect() error {
	rz, err := recoverable.Connect(o.servers, 10*time.Second, recoverable.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		return err
	}
	o.mu.Lock()
	old := o.zk
	o.zk = rz
	o.mu.Unlock()
	if old != nil {
		old.Close()
	}
	return nil
}

// conn is the operator's client now.
func (o *operator) conn() *recoverable.RecoverableZookeeper {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.zk
}

// leader names the speaker that wrote the out file's last line: the one
// that leads, or led until a moment ago.
func (o *operator) leader() string {
	if o.leaderByZnode {
		return o.electedName()
	}
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
		return o.path, ignoreNoNode(o.conn().Delete(ctx, o.path, -1))
	}
	children, err := o.conn().Children(ctx, o.path)
	if err != nil {
		return "", ignoreNoNode(err)
	}
	cands := o.ours(children)
	if len(cands) == 0 {
		return "", nil
	}
	node := o.path + "/" + cands[0]
	return node, ignoreNoNode(o.conn().Delete(ctx, node, -1))
}

// deleteMember deletes one znode under the path by hand, as an operator
// would remove one process's: the pick'th by name, modulo their number, so
// that every process's comes up in a soak.
// It returns what it deleted, "" when there was nothing.
func (o *operator) deleteMember(ctx context.Context, pick int) (string, error) {
	children, err := o.conn().Children(ctx, o.path)
	if err != nil || len(children) == 0 {
		return "", ignoreNoNode(err)
	}
	slices.Sort(children)
	node := o.path + "/" + children[pick%len(children)]
	return node, ignoreNoNode(o.conn().Delete(ctx, node, -1))
}

// deletePath deletes the election path and everything under it at once,
// in one multi: the candidates cannot rejoin in between, as they would
// between the single deletes of zkCli's deleteall. A candidate that joins
// before the multi fails it (not empty); then it lists and tries again.
func (o *operator) deletePath(ctx context.Context) error {
	for attempt := 0; attempt < 20 && ctx.Err() == nil; attempt++ {
		children, err := o.conn().Children(ctx, o.path)
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
		if _, err = o.conn().Conn().Multi(ops...); err == nil {
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
			children, err := o.conn().Children(ctx, o.path)
			if err != nil && !errors.Is(err, zk.ErrNoNode) {
				return nil, err
			}
			for _, c := range o.ours(children) {
				left = append(left, o.path+"/"+c)
			}
		} else {
			ok, _, err := o.conn().Exists(ctx, o.path)
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

func (o *operator) close() { o.conn().Close() }

func ignoreNoNode(err error) error {
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	return err
}

// electedName is the name in the lowest candidate's znode: the leader of
// a sequential election, as the persistence processes stand.
func (o *operator) electedName() string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	children, err := o.conn().Children(ctx, o.path)
	if err != nil {
		return ""
	}
	cands := nodemonitor.Candidates(children)
	if len(cands) == 0 {
		return ""
	}
	data, _, err := o.conn().Get(ctx, o.path+"/"+cands[0].Name)
	if err != nil {
		return ""
	}
	return string(data)
}

// ours lists the znodes among children that the soak's processes made,
// first to go first: candidates in line order, or members by name.
func (o *operator) ours(children []string) []string {
	if o.anyNames {
		return bySequence(children)
	}
	if o.members {
		out := slices.Clone(children)
		slices.Sort(out)
		return out
	}
	var out []string
	for _, c := range nodemonitor.Candidates(children) {
		out = append(out, c.Name)
	}
	return out
}
