package scripttest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// checkPaneTitles wants each pane of the session titled, titles shown on
// top. zkview's title goes on with the page's address (checkAddressShown).
func checkPaneTitles(t *testing.T, sock, session string) {
	t.Helper()
	if v, err := tmuxOut(t, sock, "show-options", "-w", "-v", "-t", session, "pane-border-status"); v != "top" {
		t.Errorf("pane-border-status of %s: %q (%v), want top", session, v, err)
	}
	titles, err := tmuxOut(t, sock, "list-panes", "-t", session, "-F", "#{pane_title}")
	if err != nil {
		t.Fatalf("list-panes: %v: %s", err, titles)
	}
	got := strings.Split(titles, "\n")
	for i, title := range got {
		if strings.HasPrefix(title, "zkview ") {
			got[i] = "zkview"
		}
	}
	slices.Sort(got)
	if want := []string{"out.txt", "speaker-1", "speaker-2", "speaker-3", "status", "zkview"}; !slices.Equal(got, want) {
		t.Errorf("pane titles %q, want %q", got, want)
	}
}

// checkAddressShown wants the live page's address, which the script
// printed, where a user sees it once attached: the script's own terminal
// is hidden behind the window until the demo ends. It must be in zkview's
// pane title and in the session's status line.
func checkAddressShown(t *testing.T, sock, session, printed string) {
	t.Helper()
	url := regexp.MustCompile(`Watch it live in a browser: (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(printed)
	if url == nil {
		t.Errorf("demo-tmux.sh printed no address of the live page:\n%s", printed)
		return
	}
	titles, _ := tmuxOut(t, sock, "list-panes", "-t", session, "-F", "#{pane_title}")
	if !strings.Contains(titles, "zkview "+url[1]) {
		t.Errorf("zkview's pane title does not show %s; the titles:\n%s", url[1], titles)
	}
	status, _ := tmuxOut(t, sock, "show-options", "-v", "-t", session, "status-right")
	if !strings.Contains(status, url[1]) {
		t.Errorf("the status line of %s does not show %s: status-right is %q", session, url[1], status)
	}
}

// leaveLeftovers puts an earlier run's line in outFile and a file in
// ensembleDir, as an earlier demo or run-along leaves them.
func leaveLeftovers(t *testing.T, outFile, ensembleDir string) {
	t.Helper()
	if err := os.MkdirAll(ensembleDir, 0o755); err != nil {
		t.Fatal(err)
	}
	old := "2020-01-01T00:00:00.000000000Z speaker-1 41 epoch=12884901891\n"
	if err := os.WriteFile(outFile, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ensembleDir, "left-by-an-earlier-run"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkStartedClean wants neither leftover of leaveLeftovers: a strip of
// lines that runs on from an earlier run's shows a gap between the runs
// that reads as a slow failover, and an ensemble on old data numbers its
// znodes and epochs on from the old ones, unlike the docs.
func checkStartedClean(t *testing.T, outFile, ensembleDir string) {
	t.Helper()
	if data, _ := os.ReadFile(outFile); strings.Contains(string(data), "speaker-1 41 epoch=12884901891") {
		t.Errorf("%s still holds the earlier run's line:\n%s", outFile, data)
	}
	if _, err := os.Stat(filepath.Join(ensembleDir, "left-by-an-earlier-run")); err == nil {
		t.Errorf("the ensemble started in %s on an earlier run's folder", ensembleDir)
	}
}
