package scripttest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// Every bad-input example the docs show is run as shown, and must print
// what they print: a command line after a prompt ("$ " or "% "), then the
// one line the program answers. Bad input is found before any server is
// asked, so the examples are quick and need none; an example that got
// past the checks to a server (status 2 is bad input's alone) is not one
// of them, and is left to the chapters' run-alongs.
func TestDocsBadInputExamplesAreWhatHappens(t *testing.T) {
	t.Parallel()
	root, err := zktest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bins := buildAll(t, root)
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	recipes, _ := filepath.Glob(filepath.Join(root, "recipes", "*", "README.md"))
	checked := 0
	for _, doc := range append(append([]string{filepath.Join(root, "README.md")}, docs...), recipes...) {
		for _, ex := range examples(t, doc) {
			got, status := runExample(t, bins, ex.command)
			if status != 2 {
				continue // not bad input: it needs a server
			}
			checked++
			if got != ex.output {
				t.Errorf("%s: %s\n shows: %s\n  says: %s", filepath.Base(doc), ex.command, ex.output, got)
			}
		}
	}
	if checked < 5 {
		t.Fatalf("only %d bad-input examples found in the docs; the test looks in the wrong places", checked)
	}
	t.Logf("%d bad-input examples of the docs checked", checked)
}

// example is a command the docs show and the one line shown after it.
type example struct{ command, output string }

// examples finds, in doc, every prompt line that runs one of the programs
// and is followed by one line under that program's name.
func examples(t *testing.T, doc string) []example {
	t.Helper()
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var out []example
	for i := 0; i+1 < len(lines); i++ {
		cmd, ok := strings.CutPrefix(lines[i], "$ ")
		if !ok {
			cmd, ok = strings.CutPrefix(lines[i], "% ")
		}
		if !ok || strings.ContainsAny(cmd, "|;&$`<>") {
			continue
		}
		prog := filepath.Base(strings.Fields(cmd + " x")[0])
		if _, known := map[string]bool{"speaker": true, "zklock": true, "zkgroup": true, "zkconfig": true, "seqid": true, "zkview": true, "zkbarrier": true, "zkqueue": true}[prog]; !known {
			continue
		}
		if strings.HasPrefix(lines[i+1], prog+": ") {
			out = append(out, example{command: cmd, output: lines[i+1]})
		}
	}
	return out
}

// runExample runs command with the program from bins, with nothing at the
// default servers' address, and returns what it printed and its status.
func runExample(t *testing.T, bins map[string]string, command string) (string, int) {
	t.Helper()
	words := strings.Fields(command)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bins[filepath.Base(words[0])], words[1:]...)
	cmd.Env = append(os.Environ(), "ZK_SERVERS="+zktest.NoZooKeeper(t), "ZK_AUTH=")
	cmd.Dir = t.TempDir()
	out, _ := cmd.CombinedOutput()
	return strings.TrimRight(string(out), "\n"), cmd.ProcessState.ExitCode()
}
