package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// Bad input gets one line naming the problem, exit status 2, and nothing
// is written: no znode, no store directory, no file.
func TestBadInput(t *testing.T) {
	t.Parallel()
	conn := server(t)
	root := fmt.Sprintf("/bad-%d", time.Now().UnixNano())
	mustSeqid(t, "create", "--servers", conn, "--root", root, "known")
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		args []string
		want string // in the one line
	}{
		{[]string{"next", "nosuch"}, `NAME "nosuch": no such sequence`},
		{[]string{"next", "--count", "-1", "known"}, "--count"},
		{[]string{"next", "--count", "0", "known"}, "--count"},
		{[]string{"next", "--count", "ten", "known"}, "--count"},
		{[]string{"next", "--count", "9223372036854775807", "known"}, "--count"},
		{[]string{"persist", "--store", missing, "--block", "9223372036854775807"}, "--block"},
		{[]string{"create", "--start", "9223372036854775000", "huge"}, "--start"},
		{[]string{"next", "--wait", "0s", "known"}, "--wait"},
		{[]string{"next", "known", "--count", "2"}, "flags go before NAME"},
		{[]string{"next"}, "missing NAME"},
		{[]string{"create", "--start", "-5", "neg"}, "--start"},
		{[]string{"create", "a/b"}, "NAME"},
		{[]string{"create", "--mode", "fast", "quick"}, `--mode: "fast": want cas or counter`},
		{[]string{"bench", "--mode", "cas,fast"}, "--mode"},
		{[]string{"delete", "nosuch"}, `NAME "nosuch": no such sequence under /bad-`},
		{[]string{"persist"}, "--store"},
		{[]string{"persist", "--store", filepath.Join(file, "sub")}, "--store"},
		{[]string{"persist", "--store", file}, fmt.Sprintf("--store: %q is not a directory", file)},
		{[]string{"persist", "--store", missing, "--block", "0"}, "--block"},
		{[]string{"persist", "--store", missing, "--election", "rel"}, "--election"},
		// Characters go-zookeeper or the server refuses: at once, never retried.
		{[]string{"persist", "--store", missing, "--election", "/seq\u0085"}, "--election"},
		{[]string{"persist", "--store", missing, "--root", "/seq\u0085"}, "--root"},
		{[]string{"list", "--root", "/seq\uf000"}, "--root"},
		{[]string{"restore", "--store", missing}, "--store"},
		{[]string{"list", "--store", missing}, "--store"},
		{[]string{"list", "extra"}, "unexpected argument"},
		{[]string{"list", "extra", "--store", missing}, "--store: flags go before the arguments"},
		{[]string{"next", "--auth", "nopassword", "known"}, "--auth"},
		{[]string{"persist", "--store", missing, "--auth", ":secret"}, "--auth"},
		{[]string{"create", "--auth", "", "fresh"}, "--auth: is empty"},
		{[]string{"bench", "--workers", "0"}, "--workers"},
		{[]string{"bench", "--batch", "x"}, "--batch"},
		{[]string{"bench", "--goroutines", "0"}, "--goroutines"},
		{[]string{"bench", "--backoff", "50ms-5ms"}, "--backoff"},
		{[]string{"bench", "--backoff", "fast"}, "--backoff"},
		{[]string{"bench", "--warmup", "-1s"}, "--warmup"},
		{[]string{"bench", "--repeat", "0"}, "--repeat"},
		{[]string{"frobnicate"}, "no command"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := tc.args
			if len(args) > 0 && args[0] != "frobnicate" && args[0] != "bench" {
				args = append([]string{args[0], "--servers", conn, "--root", root}, args[1:]...)
			}
			code, out, errOut := seqid(t, args...)
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			if code != 2 || len(lines) != 1 || !strings.Contains(errOut, tc.want) || !strings.HasPrefix(errOut, "seqid: ") || out != "" {
				t.Errorf("seqid %v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", args, code, out, errOut, tc.want)
			}
		})
	}
	// Creating what exists is no bad input, but it changes nothing either.
	if code, _, errOut := seqid(t, "create", "--servers", conn, "--root", root, "--start", "7", "known"); code != 1 || !strings.Contains(errOut, "exists already") {
		t.Errorf("create of an existing sequence: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("a store directory was made: %v", err)
	}
	out := mustSeqid(t, "list", "--servers", conn, "--root", root)
	if f := strings.Fields(out); len(f) != 10 || f[5] != "known" || f[7] != "1" || f[8] != "1" {
		t.Errorf("after the bad input, list printed %q; want known alone, untouched", out)
	}
}

// As every command does, a seqid command warns when the server changed the
// session timeout asked for.
func TestGrantedSessionTimeoutIsWarnedAbout(t *testing.T) {
	t.Parallel()
	code, _, stderr := seqid(t, "list", "-s", server(t), "--session-timeout", zktest.BelowMinSession)
	if code != 0 || !strings.Contains(stderr, zktest.RaisedWarning) {
		t.Fatalf("list: exit %d, stderr %q; want 0 and %s", code, stderr, zktest.RaisedWarning)
	}
}
