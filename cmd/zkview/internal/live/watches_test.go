package live

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/fourletter"
)

// watchCount is what a server says of its watches with the four-letter
// word wchs: how many connections hold watches, and how many watches they
// hold in all. ZooKeeper counts only its data watches there, those that
// get and exists leave (on a missing znode too), not children watches.
type watchCount struct {
	conns, total int
}

// countWatches asks addr with wchs.
func countWatches(ctx context.Context, addr string) (watchCount, error) {
	out, err := fourletter.FourLetterWord(ctx, addr, "wchs")
	if err != nil {
		return watchCount{}, err
	}
	// "1 connections watching 5 paths\nTotal watches:5\n"
	var c watchCount
	first, rest, _ := strings.Cut(out, "\n")
	n, _, _ := strings.Cut(first, " connections")
	if c.conns, err = strconv.Atoi(strings.TrimSpace(n)); err != nil {
		return c, fmt.Errorf("wchs from %s: %q", addr, out)
	}
	_, total, ok := strings.Cut(rest, "Total watches:")
	if c.total, err = strconv.Atoi(strings.TrimSpace(total)); !ok || err != nil {
		return c, fmt.Errorf("wchs from %s: %q", addr, out)
	}
	return c, nil
}

// awaitWatches polls addr until ok holds of its watches, and returns the
// last count; it fails the test when the server cannot be asked.
func awaitWatches(t *testing.T, addr string, within time.Duration, ok func(watchCount) bool) watchCount {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := countWatches(ctx, addr)
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

// leftBehind lists the znodes that a data or exists watch on addr names
// and that needed says no watch is needed on: what a watch left behind
// looks like.
func leftBehind(t *testing.T, addr string, needed func(string) bool) []string {
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
