package zktest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/fourletter"
)

// WatchCount is what a server says of its watches with the four-letter
// word wchs: how many connections hold watches, and how many watches they
// hold in all. ZooKeeper counts only its data watches there, those that
// get and exists leave (on a missing znode too), not children watches.
// A test counts them because go-zookeeper cannot remove a watch: one a
// reader leaves on a znode that never changes again stays on the server,
// and the client sends it again at every reconnect.
type WatchCount struct {
	Conns, Total int
}

// CountWatches asks addr with wchs.
func CountWatches(ctx context.Context, addr string) (WatchCount, error) {
	out, err := fourletter.FourLetterWord(ctx, addr, "wchs")
	if err != nil {
		return WatchCount{}, err
	}
	// "1 connections watching 5 paths\nTotal watches:5\n"
	var c WatchCount
	first, rest, _ := strings.Cut(out, "\n")
	n, _, _ := strings.Cut(first, " connections")
	if c.Conns, err = strconv.Atoi(strings.TrimSpace(n)); err != nil {
		return c, fmt.Errorf("wchs from %s: %q", addr, out)
	}
	_, total, ok := strings.Cut(rest, "Total watches:")
	if c.Total, err = strconv.Atoi(strings.TrimSpace(total)); !ok || err != nil {
		return c, fmt.Errorf("wchs from %s: %q", addr, out)
	}
	return c, nil
}

// AwaitWatches polls addr until ok holds of its watches, or within has
// passed, and returns the last count: a watch is set and fired by the
// server a moment after the client's call, so a test waits for the count
// it wants and judges the last one. It fails the test when the server
// cannot be asked.
func AwaitWatches(t testing.TB, addr string, within time.Duration, ok func(WatchCount) bool) WatchCount {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := CountWatches(ctx, addr)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if ok(c) || time.Now().After(deadline) {
			return c
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WatchesLeftBehind lists the znodes that a data or exists watch on addr
// names (wchc) and that needed says no watch is needed on: what a watch
// left behind looks like, for a failure message that names them.
func WatchesLeftBehind(t testing.TB, addr string, needed func(string) bool) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	bySession, err := fourletter.Watches(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, paths := range bySession {
		for _, p := range paths {
			if !needed(p) {
				left = append(left, p)
			}
		}
	}
	return left
}
