package electiontest

import (
	"os"
	"testing"
	"time"

	"zkspeaker/speaker"
)

// Term is a run of consecutive lines by one writer in the out file.
type Term = speaker.Term

// ReadTerms parses the out file at path and checks the invariants every
// test holds it to: every line whole, each writer's counter up by exactly 1
// from 1, each term starting after the previous one's last line, and,
// unless a writer may lead twice, no writer in two terms (that would mean
// it spoke again after a successor had). It returns the terms.
func ReadTerms(t testing.TB, path string, mayReturn bool) []Term {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("out file: %v", err)
	}
	defer f.Close()
	tl, err := speaker.ReadTimeline(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range tl.Anomalies {
		if a.Kind != speaker.AnomalyOverlap { // checked below, more strictly
			t.Fatalf("%s line %d: %s: %s", path, a.Line, a.Kind, a.Detail)
		}
	}
	seen := map[string]bool{}
	for i, term := range tl.Terms {
		if i > 0 && term.First.Before(tl.Terms[i-1].Last) {
			t.Fatalf("%s: %s starts at %v, before %s's last line at %v: two writers overlap",
				path, term.Name, term.First, tl.Terms[i-1].Name, tl.Terms[i-1].Last)
		}
		if seen[term.Name] && !mayReturn {
			t.Fatalf("%s: %s speaks again (from counter %d) after another writer took over", path, term.Name, term.FromCounter)
		}
		seen[term.Name] = true
	}
	return tl.Terms
}

// WaitTerms polls the out file until cond holds for its terms.
func WaitTerms(t testing.TB, path string, timeout time.Duration, what string, cond func([]Term) bool) []Term {
	t.Helper()
	var terms []Term
	Eventually(t, timeout, what, func() bool {
		if _, err := os.Stat(path); err != nil {
			return false
		}
		terms = ReadTerms(t, path, true)
		return cond(terms)
	})
	return terms
}
