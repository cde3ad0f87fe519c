// Command eagerspeaker is a student's leader election with the classic
// mistake: it joins the line and writes its first line before it checks
// that it is first in line. Otherwise it keeps the contract of
// docs/chaos.md, so the soak of --cmd must fail it for the overlap alone.
package main

import (
	"context"
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

func main() {
	servers := flag.String("zk", "", "ZooKeeper servers, host:port,…")
	name := flag.String("name", "", "the name on its lines")
	out := flag.String("out", "", "the file it appends its lines to")
	election := flag.String("path", "/eager", "the election's parent znode")
	session := flag.Duration("session", 2*time.Second, "the session timeout")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	conn, _, err := zk.Connect(strings.Split(*servers, ","), *session, zk.WithLogInfo(false))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	f, err := os.OpenFile(*out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	counter := 0
	write := func() {
		counter++
		fmt.Fprintf(f, "%s %s %d\n", time.Now().UTC().Format(time.RFC3339Nano), *name, counter)
	}
	for ctx.Err() == nil {
		_, _ = conn.Create(*election, nil, 0, zk.WorldACL(zk.PermAll))
		me, err := conn.Create(*election+"/n_", nil, zk.FlagEphemeralSequential, zk.WorldACL(zk.PermAll))
		if err != nil {
			pause(ctx, 200*time.Millisecond)
			continue
		}
		write() // the mistake: it has not looked at the line yet
		lead(ctx, conn, *election, path.Base(me), write)
	}
}

// lead writes every 200 ms while its znode is first in line, and waits
// for the one before it otherwise; it returns once its znode is gone.
func lead(ctx context.Context, conn *zk.Conn, election, me string, write func()) {
	for ctx.Err() == nil {
		children, _, err := conn.Children(election)
		if err != nil {
			pause(ctx, 200*time.Millisecond)
			continue
		}
		slices.Sort(children)
		i := slices.Index(children, me)
		switch {
		case i < 0:
			return
		case i == 0:
			write()
			pause(ctx, 200*time.Millisecond)
			continue
		}
		ok, _, changed, err := conn.ExistsW(election + "/" + children[i-1])
		if err != nil {
			pause(ctx, 200*time.Millisecond)
		}
		if err != nil || !ok {
			continue
		}
		select {
		case <-changed:
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func pause(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
