package chaos

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"zkspeaker/speaker"
)

// idLines builds ID lines: each "name:id" at its offset into the soak.
func idLines(ids ...string) []byte {
	var b []byte
	for i, s := range ids {
		name, id, _ := strings.Cut(s, ":")
		l := speaker.Line{Time: ts(time.Duration(i) * step), Name: name, Counter: 1, Extra: []string{"id=" + id}}
		b = l.Append(b)
	}
	return b
}

// An ID handed out twice is found, with both holders named; a restore
// after which an ID at or below one from before the loss comes is found.
func TestIDChecks(t *testing.T) {
	out := idLines("w1:1", "w2:2", "w1:3", "w3:2", "w2:1001", "w1:3", "w2:1002")
	lossEnd := ts(3*step + step/2) // lines 1-4 before, 5-7 after
	r, err := Check(Input{Out: out, IDs: true, Start: ts(0), End: ts(10 * step), Session: time.Second,
		Faults: []Fault{{Kind: DataLoss, Target: "zk1+zk2+zk3", Start: ts(3 * step), End: lossEnd}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Duplicates) != 2 || r.Duplicates[0].Line != 4 || r.Duplicates[1].Line != 6 {
		t.Errorf("duplicates %+v, want lines 4 (ID 2) and 6 (ID 3)", r.Duplicates)
	}
	if len(r.BelowRestore) != 1 || r.BelowRestore[0].Line != 6 {
		t.Errorf("below restore %+v, want line 6 (ID 3 after the restore, below 3)", r.BelowRestore)
	}
	if !strings.Contains(r.Duplicates[0].Detail, "ID 2 to w3, handed out already to w2 on line "+strconv.Itoa(2)) {
		t.Errorf("detail %q", r.Duplicates[0].Detail)
	}
	if r.Pass() || len(r.Overlaps) != 0 {
		t.Errorf("pass %v, overlaps %d: want a failure and no overlaps looked for", r.Pass(), len(r.Overlaps))
	}
}

// The config checks: a value going back is a finding unless the older
// value's set never learned its outcome (then it landed late: explained);
// a key below its last acknowledged value is a lost write, unless it holds
// such a value; a watcher not ending on its key's value is stale.
func TestConfigChecks(t *testing.T) {
	in := &ConfigInput{
		Values: map[string][]watched{
			"v1": {{At: ts(0), Life: 1, Value: 3}, {At: ts(step), Life: 1, Value: 2}, {At: ts(2 * step), Life: 1, Value: 5}},
			"v2": {{At: ts(0), Life: 1, Value: 4}, {At: ts(step), Life: 1, Value: 3}},
			"v3": {{At: ts(0), Life: 1, Value: 8}},
		},
		Acked:  map[string]int64{"u1": 6, "u2": 4, "u3": 9},
		Unsure: map[string]map[int64]bool{"u1": {5: true}, "u2": {}, "u3": {}},
		Final:  map[string]int64{"u1": 5, "u2": 3, "u3": 9},
	}
	back, lost, late, stale := checkConfig(in)
	if len(back) != 2 || !strings.Contains(back[0].Detail+back[1].Detail, "v1 saw u1 go back from 3 to 2") {
		t.Errorf("went back %+v, want v1's 3 to 2 and v2's 4 to 3", back)
	}
	if len(lost) != 1 || !strings.Contains(lost[0].Detail, "u2 holds 3") {
		t.Errorf("lost %+v, want u2's", lost)
	}
	if len(late) != 1 || !strings.Contains(late[0].Detail, "u1 holds 5 after 6 was acknowledged") {
		t.Errorf("late %+v, want u1's 5 over 6", late)
	}
	if len(stale) != 1 || stale[0].Detail != "v3's last value of u3 is 8; the key holds 9" {
		t.Errorf("stale %+v, want v3's", stale)
	}
}
