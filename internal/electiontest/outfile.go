package electiontest

import (
	"bufio"
	"os"
	"testing"
	"time"

	"zkspeaker/speaker"
)

// Term is a run of consecutive lines by one writer in the out file.
type Term struct {
	Name        string
	First, Last time.Time
	Lines       int
}

// ReadTerms parses the out file at path and checks the invariants every
// test holds it to: every line whole, each writer's counter up by exactly 1
// from 1, and, unless a writer may lead twice, no writer in two terms (that
// would mean it spoke again after a successor had). It returns the terms.
func ReadTerms(t testing.TB, path string, mayReturn bool) []Term {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("out file: %v", err)
	}
	defer f.Close()
	var terms []Term
	last := map[string]uint64{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l, err := speaker.ParseLine(sc.Text())
		if err != nil {
			t.Fatalf("%s line %d: %v", path, n, err)
		}
		if l.Counter != last[l.Name]+1 {
			t.Fatalf("%s line %d: %s counts %d after %d", path, n, l.Name, l.Counter, last[l.Name])
		}
		last[l.Name] = l.Counter
		if len(terms) > 0 && terms[len(terms)-1].Name == l.Name {
			cur := &terms[len(terms)-1]
			cur.Last, cur.Lines = l.Time, cur.Lines+1
			continue
		}
		if len(terms) > 0 && l.Time.Before(terms[len(terms)-1].Last) {
			t.Fatalf("%s line %d: %s starts at %v, before %s's last line at %v: two writers overlap",
				path, n, l.Name, l.Time, terms[len(terms)-1].Name, terms[len(terms)-1].Last)
		}
		if seen[l.Name] && !mayReturn {
			t.Fatalf("%s line %d: %s speaks again after another writer took over", path, n, l.Name)
		}
		seen[l.Name] = true
		terms = append(terms, Term{Name: l.Name, First: l.Time, Last: l.Time, Lines: 1})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return terms
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
