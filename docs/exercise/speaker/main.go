// Command speaker is the skeleton of the course's last exercise (docs/course.md,
// "Write your own speaker"): a program that keeps the contract of
// docs/chaos.md, its flags, its lines and its answer to SIGTERM, and holds
// no election yet. As it stands, every process believes it leads from the
// start, and the soak fails it on overlaps. Write the election in run and
// lead, then run the soak again:
//
//	go build -o bin/my-speaker ./docs/exercise/speaker
//	bin/speaker chaos --servers 1 --duration 30s --speakers 3 \
//	  --cmd 'bin/my-speaker --zk {servers} --name {name} --out {out} --path {path} --session {session}'
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"
)

// speaker is one process of the election.
type speaker struct {
	conn     *zk.Conn
	name     string
	path     string // the election's parent znode: stand under it
	out      *os.File
	interval time.Duration
	counter  int
}

func main() {
	servers := flag.String("zk", "127.0.0.1:2181", "ZooKeeper servers, host:port,… ({servers})")
	name := flag.String("name", "", "the name on its lines ({name})")
	out := flag.String("out", "out.txt", "the file every process appends to ({out})")
	path := flag.String("path", "/election", "the election's parent znode ({path})")
	session := flag.Duration("session", 2*time.Second, "the session timeout ({session})")
	interval := flag.Duration("interval", 200*time.Millisecond, "time between two lines while it leads: 1s at most")
	flag.Parse()
	// Its log (and go-zookeeper's) in UTC to the microsecond, as out.txt
	// and faults.log are, so that the three can be read side by side.
	log.SetFlags(log.LstdFlags | log.Lmicroseconds | log.LUTC)
	// The contract: SIGTERM is handled before the program connects, and
	// answered by closing the session and exiting with status 0.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	f, err := os.OpenFile(*out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	conn, _, err := zk.Connect(strings.Split(*servers, ","), *session)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close() // the session ends, and its ephemeral znodes with it
	s := &speaker{conn: conn, name: *name, path: *path, out: f, interval: *interval}
	s.run(ctx)
	log.Printf("%s: SIGTERM: closing the session", s.name)
}

// run stands in the election until ctx ends.
//
// TODO: this is your election. Create the election's znode (s.path) when
// it is missing, put an ephemeral sequential znode of yours under it,
// wait until yours is the first, and only then lead. When your znode is
// gone (your session expired, an operator deleted it), stand again.
func (s *speaker) run(ctx context.Context) {
	for ctx.Err() == nil {
		s.lead(ctx)
	}
}

// lead writes a line every interval until ctx ends.
//
// TODO: stop as soon as you may no longer lead: when ZooKeeper says your
// znode is gone, or when you cannot know (disconnected, or woken from a
// pause longer than your session).
func (s *speaker) lead(ctx context.Context) {
	for ctx.Err() == nil {
		s.write()
		select {
		case <-ctx.Done():
		case <-time.After(s.interval):
		}
	}
}

// write appends the contract's line, `<RFC 3339 time> <name> <counter>`,
// in one write to a file opened with O_APPEND, so that no two processes'
// lines are ever mixed.
func (s *speaker) write() {
	s.counter++
	fmt.Fprintf(s.out, "%s %s %d\n", time.Now().UTC().Format(time.RFC3339Nano), s.name, s.counter)
}
