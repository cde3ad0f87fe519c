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
