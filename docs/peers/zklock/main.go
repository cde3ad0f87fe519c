// Command zklock is a peer of this project's speaker for the chaos soak:
// a leader election on go-zookeeper's zk.Lock, written the plain way that
// library's documentation shows (NewLock, Lock, then the work, then
// Unlock), with no fixes of ours. It keeps the contract of docs/chaos.md
// (flags, lines, SIGTERM), so that `speaker chaos --cmd` can run it:
//
//	go build -o bin/peer-zklock ./docs/peers/zklock
//	bin/speaker chaos --cmd 'bin/peer-zklock --zk {servers} --name {name} --out {out} --path {path} --session {session}'
//
// What the soak finds in it is explained in docs/chaos.md: zk.Lock has no
// way to tell its holder that the lock was lost.
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

func main() {
	servers := flag.String("zk", "127.0.0.1:2181", "ZooKeeper servers, host:port,…")
	name := flag.String("name", "", "the name on its lines")
	out := flag.String("out", "out.txt", "the file it appends its lines to")
	path := flag.String("path", "/election", "the lock's znode")
	session := flag.Duration("session", 2*time.Second, "the session timeout")
	interval := flag.Duration("interval", 200*time.Millisecond, "time between two lines while it holds the lock")
	flag.Parse()
	// Its log (and go-zookeeper's) in UTC to the microsecond, as out.txt
	// and faults.log are, so that the three can be read side by side.
	log.SetFlags(log.LstdFlags | log.Lmicroseconds | log.LUTC)
	// The contract: SIGTERM is handled before we connect.
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
	s := &speaker{name: *name, out: f, interval: *interval}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.run(ctx, zk.NewLock(conn, *path, zk.WorldACL(zk.PermAll)))
	}()
	<-ctx.Done()
	log.Printf("%s: SIGTERM: stop writing, let go of the lock, close the session", *name)
	select {
	case <-done:
	case <-time.After(2 * time.Second): // still in Lock, which takes no ctx
	}
	conn.Close() // its znode goes with the session; a Lock still waiting returns
	<-done
}

// speaker writes the contract's lines while it holds the lock.
type speaker struct {
	name     string
	out      *os.File
	interval time.Duration
	counter  int
}

// run takes the lock, writes until SIGTERM, and lets go: the way the
// library's documentation shows. When Lock fails (the connection lost
// while it waited), it tries again.
func (s *speaker) run(ctx context.Context, l *zk.Lock) {
	for ctx.Err() == nil {
		if err := l.Lock(); err != nil {
			log.Printf("%s: Lock: %v; trying again in a second", s.name, err)
			sleep(ctx, time.Second)
			continue
		}
		log.Printf("%s: holds the lock: writing", s.name)
		s.lead(ctx) // zk.Lock never says that the lock is lost
		if err := l.Unlock(); err != nil {
			log.Printf("%s: Unlock: %v", s.name, err)
		}
	}
}

// lead writes a line every interval until ctx ends.
func (s *speaker) lead(ctx context.Context) {
	for ctx.Err() == nil {
		s.counter++
		// One Write of the whole line, to a file opened with O_APPEND.
		fmt.Fprintf(s.out, "%s %s %d\n", time.Now().UTC().Format(time.RFC3339Nano), s.name, s.counter)
		sleep(ctx, s.interval)
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
