package nodemonitor

import (
	"regexp"
	"strconv"
	"testing"

	"zkspeaker/recoverable"
)

// grammar is what a candidate's name is, written the short way: the hand
// parser must accept exactly these names, and read the same number.
var grammar = regexp.MustCompile(`^(?:` + recoverable.ProtectedPrefix + `[0-9a-f]{32}-)?` + Prefix + `(\d{10})$`)

func TestCandidateSeqAgreesWithTheGrammar(t *testing.T) {
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
	}
	for _, name := range names {
		m := grammar.FindStringSubmatch(name)
		seq, ok := candidateSeq(name)
		if (m != nil) != ok {
			t.Errorf("%q: candidateSeq says %v, the grammar %v", name, ok, m != nil)
			continue
		}
		if ok {
			if want, _ := strconv.ParseInt(m[1], 10, 64); seq != want {
				t.Errorf("%q: seq %d, want %d", name, seq, want)
			}
		}
	}
}

// TestStandAgreesWithTheSortedLine checks the one-pass decision against the
// sorted line, for every candidate of a shuffled list with other children
// mixed in, and for a name that is not there.
func TestStandAgreesWithTheSortedLine(t *testing.T) {
	t.Parallel()
	guid := "0123456789abcdef0123456789abcdef"
	children := []string{"readme", "_c_" + guid + "-n_0000000031", "n_0000000007", "lock-0000000001",
		"_c_" + guid + "-n_0000000012", "n_0000000030", "n_0000000100", "_c_" + guid + "-n_0000000002"}
	line := Candidates(children)
	for i, c := range line {
		got := stand(children, c.Name)
		want := standing{found: true, ahead: i}
		if i > 0 {
			want.predecessor = line[i-1].Name
		}
		if got != want {
			t.Errorf("%s: stand says %+v, the sorted line %+v", c.Name, got, want)
		}
	}
	for _, missing := range []string{"n_0000000008", "readme", ""} {
		if got := stand(children, missing); got.found {
			t.Errorf("%q: stand found it in %v", missing, children)
		}
	}
}
