package main_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/internal/usage"
)

// runOffline is run for what needs no ZooKeeper, so that it runs under
// -short too.
func runOffline(t *testing.T, args ...string) string {
	t.Helper()
	p := zktest.Run(t, zktest.BuildSpeaker(t), args...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if code, err := p.Wait(ctx); err != nil || code != 0 {
		t.Fatalf("speaker %q: exit %d (%v), want 0; stderr %q", args, code, err, p.Stderr())
	}
	return p.Stdout()
}

// Every help page fits a terminal of 80 columns, `speaker help [COMMAND]`
// says what --help says, and each flag with a range states it.
func TestHelpFitsEightyColumnsAndStatesRanges(t *testing.T) {
	for _, tc := range []struct {
		help, same []string
		ranges     []string // what the page must say about a flag's values
	}{
		{help: []string{"help"}, same: []string{"--help"}, ranges: []string{"above 0", "0 or more", "2 to 20 ticks"}},
		{help: []string{"help", "status"}, same: []string{"status", "--help"}},
		{help: []string{"help", "timeline"}, same: []string{"timeline", "-h"}, ranges: []string{"10 to 1000"}},
		{help: []string{"help", "bench"}, same: []string{"bench", "--help"}, ranges: []string{"2 to 10000", "1 or more"}},
		{help: []string{"help", "help"}},
	} {
		page := runOffline(t, tc.help...)
		if page == "" {
			t.Errorf("speaker %q printed nothing", tc.help)
		}
		for _, line := range strings.Split(page, "\n") {
			if n := utf8.RuneCountInString(line); n > usage.Width {
				t.Errorf("speaker %q: a line of %d columns, want at most %d: %q", tc.help, n, usage.Width, line)
			}
		}
		for _, r := range tc.ranges {
			if !strings.Contains(page, r) {
				t.Errorf("speaker %q does not say %q:\n%s", tc.help, r, page)
			}
		}
		if tc.same != nil {
			if other := runOffline(t, tc.same...); other != page {
				t.Errorf("speaker %q and speaker %q differ:\n%s\n---\n%s", tc.help, tc.same, page, other)
			}
		}
	}
	// Plain `speaker` runs a speaker: the usage must not ask for a command.
	if page := runOffline(t, "help"); !strings.Contains(page, "speaker [options]") {
		t.Errorf("the usage does not show that speaker runs without a command:\n%s", page)
	}
}

func TestVersionNamesTheBuild(t *testing.T) {
	for _, flag := range []string{"--version", "-v"} {
		out := runOffline(t, flag)
		if !strings.HasPrefix(out, "speaker ") || !strings.Contains(out, runtime.Version()) {
			t.Errorf("speaker %s: %q, want speaker, its version and %s", flag, out, runtime.Version())
		}
	}
}
