package main_test

import (
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"zkspeaker/internal/usage"
)

// Every help page fits 80 columns, `zkconfig help COMMAND` says what
// `zkconfig COMMAND --help` says, and each page names what matters.
func TestHelpFitsEightyColumns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		help, same []string
		says       []string
	}{
		{help: []string{"help"}, same: []string{"--help"}, says: []string{"update", "watch", "set", "get"}},
		{help: []string{}, same: []string{"-h"}},
		{help: []string{"help", "update"}, same: []string{"update", "--help"}, says: []string{"--resilient", "--every", "ConfigUpdater", "$ZK_SERVERS", "$ZK_AUTH", "default: 5s"}},
		{help: []string{"help", "watch"}, same: []string{"watch", "-h"}, says: []string{"ConfigWatcher", "--session-timeout"}},
		{help: []string{"help", "set"}, same: []string{"set", "--help"}, says: []string{"KEY VALUE"}},
		{help: []string{"help", "get"}, same: []string{"get", "--help"}, says: []string{"exit status 1"}},
		// Words after the command are its arguments, not a help topic.
		{help: []string{"help", "get", "motd"}, same: []string{"get", "--help", "motd"}, says: []string{"exit status 1"}},
	} {
		page := mustRun(t, tc.help...).stdout
		for _, line := range strings.Split(page, "\n") {
			if n := utf8.RuneCountInString(line); n > usage.Width {
				t.Errorf("zkconfig %q: a line of %d columns, want at most %d: %q", tc.help, n, usage.Width, line)
			}
		}
		for _, s := range tc.says {
			if !strings.Contains(page, s) {
				t.Errorf("zkconfig %q does not say %q:\n%s", tc.help, s, page)
			}
		}
		if other := mustRun(t, tc.same...).stdout; other != page {
			t.Errorf("zkconfig %q and zkconfig %q differ:\n%s\n---\n%s", tc.help, tc.same, page, other)
		}
	}
	if out := mustRun(t, "--version").stdout; !strings.HasPrefix(out, "zkconfig ") || !strings.Contains(out, runtime.Version()) {
		t.Errorf("zkconfig --version: %q, want zkconfig, its version and %s", out, runtime.Version())
	}
}
