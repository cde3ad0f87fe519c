// Command pollingspeaker is a student's leader election that never sets a
// watch: a follower looks at the line every --poll (5 s), and takes over
// when its znode is first. It is slow but correct: a leader reads the line
// again before each of its lines, and writes only while that read is
// fresh, so that it never speaks once its session may have expired. It
// keeps the contract of docs/chaos.md; run under the soak, it declares its
// poll with --pace, and passes with its long handovers in the report.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"
)

type speaker struct {
	conn     *zk.Conn
	name     string
	out      *os.File
	election string
	session  time.Duration
	poll     time.Duration
	interval time.Duration
	counter  int
}

func main() {
	s := &speaker{}
	servers := flag.String("zk", "", "ZooKeeper servers, host:port,…")
	out := flag.String("out", "", "the file it appends its lines to")
	flag.StringVar(&s.name, "name", "", "the name on its lines")
	flag.StringVar(&s.election, "path", "/polling", "the election's parent znode")
	flag.DurationVar(&s.session, "session", 2*time.Second, "the session timeout")
	flag.DurationVar(&s.poll, "poll", 5*time.Second, "how often a follower looks at the line")
	flag.DurationVar(&s.interval, "interval", time.Second, "time between two lines of the leader")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	f, err := os.OpenFile(*out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	s.out = f
	conn, _, err := zk.Connect(strings.Split(*servers, ","), s.session, zk.WithLogInfo(false))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	s.conn = conn
	for ctx.Err() == nil {
		me, err := s.join()
		if err != nil {
			pause(ctx, s.poll)
			continue
		}
		s.follow(ctx, me)
	}
}

// join puts a znode in line. A protected create finds its own znode when
// the reply to the create was lost, rather than leave it in line as a
// stranger's.
func (s *speaker) join() (string, error) {
	_, _ = s.conn.Create(s.election, nil, 0, zk.WorldACL(zk.PermAll))
	me, err := s.conn.CreateProtectedEphemeralSequential(s.election+"/n_", nil, zk.WorldACL(zk.PermAll))
	return path.Base(me), err
}

// follow looks at the line every poll until its znode is first, leads,
// and returns once its znode is gone.
func (s *speaker) follow(ctx context.Context, me string) {
	for ctx.Err() == nil {
		first, mine, _ := s.look(me)
		switch {
		case !mine:
			return
		case first:
			s.lead(ctx, me)
			return
		}
		pause(ctx, s.poll)
	}
}

// lead writes a line every interval, each only after a read that found
// its znode first, and only while that read is fresh: ZooKeeper answered
// after it was sent, so the session was alive then, and no one else may
// lead before it has gone a session timeout unheard. A half of it is left
// for a pause between the answer and the write.
func (s *speaker) lead(ctx context.Context, me string) {
	for ctx.Err() == nil {
		sent := time.Now()
		first, _, err := s.look(me)
		if err == nil && !first {
			return
		}
		if err == nil && time.Since(sent) < s.session/2 {
			s.counter++
			fmt.Fprintf(s.out, "%s %s %d\n", time.Now().UTC().Format(time.RFC3339Nano), s.name, s.counter)
		}
		pause(ctx, s.interval)
	}
}

// look reads the line, through its server's sync with the ZooKeeper
// leader so that a server cut off from the others cannot answer with an
// old line, and says whether me is first, and whether it is in line.
func (s *speaker) look(me string) (first, mine bool, err error) {
	_, err = s.conn.Sync(s.election)
	var children []string
	if err == nil {
		children, _, err = s.conn.Children(s.election)
	}
	switch {
	case errors.Is(err, zk.ErrNoNode): // the line was deleted, and its znodes with it
		return false, false, nil
	case err != nil:
		return false, true, err
	}
	slices.SortFunc(children, func(a, b string) int { return strings.Compare(seq(a), seq(b)) })
	i := slices.Index(children, me)
	return i == 0, i >= 0, nil
}

// seq is a znode's sequence number, the ten digits ZooKeeper appends.
func seq(name string) string { return name[max(0, len(name)-10):] }

func pause(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
