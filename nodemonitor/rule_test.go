package nodemonitor

import (
	"errors"
	"strings"
	"testing"
)

// reader and writer are a shared lock's rules, for the tests, as the
// ZooKeeper website gives them: a reader is blocked by the nearest writer
// ahead of it, a writer by the candidate just ahead. Readers lead
// together, and each waiter watches one znode.
type reader struct{}

func (reader) Prefix() string { return "read-" }
func (reader) Stand(line []Candidate, ours int) (bool, string) {
	return LeadUnlessAhead(line, ours, func(c Candidate) bool { return c.Kind == "write-" })
}

type writer struct{}

func (writer) Prefix() string { return "write-" }
func (writer) Stand(line []Candidate, ours int) (bool, string) {
	return LeadUnlessAhead(line, ours, func(c Candidate) bool { return c.Kind == "write-" || c.Kind == "read-" })
}

// TestRulesDecideOnTheLine walks rules as pure functions of the line: a
// line is written as its candidates' names in order of sequence, ours is
// the one marked with a '*', and watch is whom we watch ("" when we lead).
func TestRulesDecideOnTheLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		rule  Rule
		line  string
		watch string
	}{
		{Exclusive{}, "*n_1", ""},
		{Exclusive{}, "n_1 *n_2", "n_1"},
		{Exclusive{}, "n_1 n_2 *n_3 n_4", "n_2"},
		{Exclusive{}, "lock-1 read-2 *n_3", ""}, // other kinds block nobody
		{Exclusive{}, "n_1 write-2 *n_3", "n_1"},
		{reader{}, "read-1 read-2 *read-3", ""},
		{reader{}, "write-1 read-2 *read-3", "write-1"},
		{reader{}, "read-1 write-2 read-3 write-4 read-5 *read-6", "write-4"},
		{writer{}, "*write-1", ""},
		{writer{}, "read-1 read-2 *write-3", "read-2"},
		{writer{}, "write-1 read-2 *write-3 read-4", "read-2"},
	}
	for _, c := range cases {
		var line []Candidate
		ours := -1
		for i, name := range strings.Fields(c.line) {
			if n, ok := strings.CutPrefix(name, "*"); ok {
				name, ours = n, i
			}
			kind, seq, _ := strings.Cut(name, "_")
			if strings.Contains(name, "-") {
				kind, seq, _ = strings.Cut(name, "-")
				kind += "-"
			} else {
				kind += "_"
			}
			full := kind + strings.Repeat("0", 10-len(seq)) + seq
			line = append(line, Line([]string{full})...)
			line[i].Name = name
		}
		lead, watch := c.rule.Stand(line, ours)
		if lead != (c.watch == "") || watch != c.watch {
			t.Errorf("%T on %q: lead %v, watch %q; want watch %q", c.rule, c.line, lead, watch, c.watch)
		}
	}
}

func TestWithRuleRefusesARuleThatCannotNameCandidates(t *testing.T) {
	t.Parallel()
	if _, err := newConfig([]Option{WithRule(reader{})}); err != nil {
		t.Fatalf("a good rule: %v", err)
	}
	for _, r := range []Rule{nil, badPrefix("read"), badPrefix("Read-"), badPrefix("r3ad-"), badPrefix("")} {
		if _, err := newConfig([]Option{WithRule(r)}); !errors.Is(err, ErrInvalid) {
			t.Errorf("rule %#v: err %v, want ErrInvalid", r, err)
		}
	}
}

type badPrefix string

func (b badPrefix) Prefix() string                                { return string(b) }
func (badPrefix) Stand(line []Candidate, ours int) (bool, string) { return true, "" }
