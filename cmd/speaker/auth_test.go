package main_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// A speaker whose --auth the election's ACL refuses would be refused for
// as long as it ran: it exits 1 at once with one line saying what to give,
// and writes nothing, while the rightful leader speaks on.
func TestWrongAuthExitsWithOneLine(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	path := zktest.Path(t)
	out := filepath.Join(t.TempDir(), "out.txt")
	owner := speakersWith(t, []string{"--auth", "team:s3cret", "--path", path}, cluster.ConnString(), out, "sequential", 100*time.Millisecond, "owner")["owner"]
	defer owner.Term()
	for _, auth := range [][]string{{"--auth", "team:wrong"}, nil} {
		args := append([]string{"--servers", cluster.ConnString(), "--path", path, "--name", "intruder", "--out", out,
			"--interval", "100ms", "--session-timeout", sessionTimeout.String()}, auth...)
		p := zktest.RunSpeaker(t, args...)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		code, err := p.Wait(ctx)
		cancel()
		lines := strings.Split(strings.TrimSpace(p.Stderr()), "\n")
		if strings.Contains(p.Stderr(), "will try again") {
			t.Fatalf("it tried again before giving up; want it to give up on the first refusal:\n%s", p.Stderr())
		}
		last := lines[len(lines)-1]
		if strings.Contains(p.Stderr(), "level=ERROR") {
			t.Errorf("an ERROR line before the one line says the refusal twice:\n%s", p.Stderr())
		}
		if err != nil || code != 1 || !strings.HasPrefix(last, "speaker: not allowed") || !strings.Contains(last, "--auth") {
			t.Fatalf("%v: exit %d (%v), last line %q; want exit 1 and one line saying to give --auth", auth, code, err, last)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "intruder") || !strings.Contains(string(data), "owner") {
		t.Fatalf("out file:\n%s\nwant the owner's lines only", data)
	}
}
