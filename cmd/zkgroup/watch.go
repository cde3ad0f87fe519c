package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"zkspeaker/recipes/group"
)

// clock is how --watch stamps its lines: local time to the millisecond.
const clock = "15:04:05.000"

// runWatch is `zkgroup list --watch`: the first reading, then a line for
// each member who joins (+) or leaves (-), until Ctrl-C or until the group
// is deleted. It waits for the first session as long as it takes, as join
// does, and rides out lost connections and session expiry.
func runWatch(cfg config) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	rz, g, err := session(ctx, cfg, true)
	if err != nil {
		return quiet(ctx, explain(cfg, err))
	}
	defer rz.Close()
	w := g.Watch()
	defer w.Close()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ch, ok := <-w.Changes():
			if !ok {
				return explain(cfg, w.Err())
			}
			printChange(cfg.name, ch)
		}
	}
}

// printChange prints one Change as --watch shows it.
func printChange(name string, ch group.Change) {
	at := ch.At.Format(clock)
	switch {
	case ch.First && len(ch.Members) == 0:
		fmt.Printf("%s %s has no members\n", at, name)
	case ch.First:
		fmt.Printf("%s %s has %d member(s): %s\n", at, name, len(ch.Members), strings.Join(ch.Members, " "))
		return
	}
	for _, m := range ch.Left {
		fmt.Printf("%s - %s\n", at, m)
	}
	for _, m := range ch.Joined {
		fmt.Printf("%s + %s\n", at, m)
	}
	if ch.Deleted {
		fmt.Printf("%s %s was deleted\n", at, name)
	}
}
