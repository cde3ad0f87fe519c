package main_test

import (
	"strings"
	"testing"
)

// `zkgroup --help`, `-h` and `help` show the same page, and `zkgroup help
// join` the same as `zkgroup join --help`, all with status 0 and nothing on
// stderr; words after the command are its arguments, not a help topic.
func TestHelpByEveryName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		names [][]string
		says  []string
	}{
		{names: [][]string{{"help"}, {"--help"}, {"-h"}, {}}, says: []string{"create", "join", "list", "delete"}},
		{names: [][]string{{"help", "join"}, {"join", "--help"}, {"join", "-h"}, {"join", "--help", "zoo", "duck"}, {"help", "join", "zoo"}}, says: []string{"MEMBER", "--auth", "$ZK_SERVERS"}},
	} {
		var first string
		for i, args := range tc.names {
			out, errOut, code := run(t, args...)
			if code != 0 || errOut != "" {
				t.Fatalf("zkgroup %q: status %d, stderr %q; want 0 and nothing", args, code, errOut)
			}
			if i == 0 {
				first = out
				for _, s := range tc.says {
					if !strings.Contains(out, s) {
						t.Errorf("zkgroup %q does not say %q:\n%s", args, s, out)
					}
				}
			} else if out != first {
				t.Errorf("zkgroup %q and zkgroup %q differ:\n%s\n---\n%s", tc.names[0], args, first, out)
			}
		}
	}
}

// A word after the top-level --help names no command: bad input, one line.
func TestHelpForNoCommandIsBadInput(t *testing.T) {
	t.Parallel()
	want(t, "", "zkgroup: no command \"zoo\" (want create, join, list, delete, help)\n", 2, "--help", "zoo")
}
