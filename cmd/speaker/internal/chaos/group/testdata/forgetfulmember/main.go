// Command forgetfulmember stands in for zkgroup in one test of the group
// soak: a member that does not join again after an operator deleted its
// znode. It logs "joining again", as zkgroup does, and then does nothing;
// its process runs on, out of the group, until SIGTERM. (It does not come
// back after an expired session either: the test faults it only with
// deletes and connection resets.) The soak's checker
// must see that. Every other zkgroup command (the watcher's `list
// --watch`) it hands to the real zkgroup, zkgroup-real beside it.
//
// It lives under testdata, apart from the shipped commands: the broken
// behaviour is this test program's, not a switch in zkgroup.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "join" {
		real := filepath.Join(filepath.Dir(os.Args[0]), "zkgroup-real")
		err := syscall.Exec(real, append([]string{real}, os.Args[1:]...), os.Environ())
		fmt.Fprintln(os.Stderr, "forgetfulmember:", err)
		os.Exit(2)
	}
	fs := flag.NewFlagSet("join", flag.ExitOnError)
	servers := fs.String("servers", "", "")
	session := fs.Duration("session-timeout", 2*time.Second, "")
	fs.String("log-level", "info", "")
	_ = fs.Parse(os.Args[2:])
	if fs.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: forgetfulmember join [options] GROUP MEMBER")
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	os.Exit(join(log, strings.Split(*servers, ","), *session, fs.Arg(0)+"/"+fs.Arg(1)))
}

// join makes the member's znode, then waits for SIGTERM; when the znode is
// deleted under it, it says it joins again and does not.
func join(log *slog.Logger, servers []string, session time.Duration, path string) int {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	conn, _, err := zk.Connect(servers, session, zk.WithLogInfo(false))
	if err != nil {
		log.Error("cannot connect", "error", err)
		return 1
	}
	defer conn.Close()
	for {
		_, err := conn.Create(path, nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
		if err == nil {
			break
		}
		if errors.Is(err, zk.ErrNoNode) {
			log.Error("no such group", "member", path)
			return 1
		}
		select { // the znode of a session of ours that died, or no server yet
		case <-stop:
			return 0
		case <-time.After(100 * time.Millisecond):
		}
	}
	log.Info("joined the group", "member", path)
	_, _, watch, err := conn.ExistsW(path)
	if err != nil {
		log.Error("cannot watch our znode", "error", err)
		return 1
	}
	for {
		select {
		case <-stop:
			_ = conn.Delete(path, -1)
			log.Info("left the group and closed the session", "member", path)
			return 0
		case ev := <-watch:
			watch = nil
			if ev.Type == zk.EventNodeDeleted {
				log.Warn("our member znode was deleted, not by us; joining again", "member", path)
			}
		}
	}
}
