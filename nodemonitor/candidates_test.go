package nodemonitor

import (
	"regexp"
	"slices"
	"strconv"
	"testing"

	"zkspeaker/recoverable"
)

// grammar is what a candidate's name is, written the short way: the hand
// parser must accept exactly these names, and read the same kind and
// number.
var grammar = regexp.MustCompile(`^(?:` + recoverable.ProtectedPrefix + `[0-9a-f]{32}-)?([a-z]+[-_])(\d{10})$`)

func TestParseCandidateAgreesWithTheGrammar(t *testing.T) {
	t.Parallel()
	guid := "0123456789abcdef0123456789abcdef"
	names := []string{
		"n_0000000007", "n_9999999999", "n_0000000000",
		"_c_" + guid + "-n_0000000012",
		"n_000000007", "n_00000000070", "n_00000000a7", "n_-000000007", "n_+000000007",
		"N_0000000007", "n0000000007", "x_n_0000000007", "n_0000000007\n",
		"_c_" + guid + "n_0000000012", "_c_" + guid[1:] + "-n_0000000012", "_c_" + guid + "0-n_0000000012",
		"_c_0123456789ABCDEF0123456789abcdef-n_0000000012", "_c_" + guid + "-", "_c_", "",
		"_c_" + guid + "-lock-0000000012", "lock-0000000000", "readme", "n_٠٠٠٠٠٠٠٠٠٧",
		"read-0000000003", "write-0000000004", "_c_" + guid + "-write-0000000004", "-0000000004",
		"_0000000004", "0000000004", "re4d-0000000003", "read--0000000003", "read-_0000000003",
	}
	for _, name := range names {
		m := grammar.FindStringSubmatch(name)
		kind, seq, ok := parseCandidate(name)
		if (m != nil) != ok {
			t.Errorf("%q: parseCandidate says %v, the grammar %v", name, ok, m != nil)
			continue
		}
		if ok {
			if want, _ := strconv.ParseInt(m[2], 10, 64); seq != want || kind != m[1] {
				t.Errorf("%q: kind %q seq %d, want %q %d", name, kind, seq, m[1], want)
			}
		}
	}
}

// Candidates keeps the sequential election's kind alone, Line every kind,
// both in the order of the sequence numbers, not of the names as text.
func TestLineSortsEveryKindBySequence(t *testing.T) {
	t.Parallel()
	guid := "0123456789abcdef0123456789abcdef"
	children := []string{"readme", "_c_" + guid + "-n_0000000031", "n_0000000007", "lock-0000000001",
		"_c_" + guid + "-n_0000000012", "write-0000000030", "n_0000000100", "_c_" + guid + "-read-0000000002"}
	names := func(cs []Candidate) (out []string) {
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	wantLine := []string{"lock-0000000001", "_c_" + guid + "-read-0000000002", "n_0000000007", "_c_" + guid + "-n_0000000012",
		"write-0000000030", "_c_" + guid + "-n_0000000031", "n_0000000100"}
	if got := names(Line(children)); !slices.Equal(got, wantLine) {
		t.Errorf("Line = %v\nwant   %v", got, wantLine)
	}
	wantSeq := []string{"n_0000000007", "_c_" + guid + "-n_0000000012", "_c_" + guid + "-n_0000000031", "n_0000000100"}
	if got := names(Candidates(children)); !slices.Equal(got, wantSeq) {
		t.Errorf("Candidates = %v\nwant         %v", got, wantSeq)
	}
}
