package sequence

import (
	"errors"
	"fmt"
	"testing"
)

// A writer finds its token among the recent writes, or knows for sure it
// is not there, or, after more writes than the znode remembers, knows
// that it cannot tell.
func TestLanded(t *testing.T) {
	t.Parallel()
	var s state
	for i := range 50 {
		s = s.written(fmt.Sprint(i))
	}
	if len(s.Recent) != recentWrites || s.Recent[recentWrites-1] != "49" {
		t.Fatalf("recent: %v", s.Recent)
	}
	for _, tc := range []struct {
		token           string
		read, now       int32
		landed, certain bool
	}{
		{"45", 44, 50, true, true},  // ours, and remembered
		{"x", 44, 50, false, true},  // six writes since, none ours
		{"x", 18, 50, false, true},  // exactly as many as remembered
		{"x", 17, 50, false, false}, // one more than remembered
		{"10", 9, 50, false, false}, // ours, but forgotten: cannot tell
	} {
		landed, certain := s.landed(tc.token, tc.read, tc.now)
		if landed != tc.landed || certain != tc.certain {
			t.Errorf("landed(%q, %d, %d) = %v, %v; want %v, %v", tc.token, tc.read, tc.now, landed, certain, tc.landed, tc.certain)
		}
	}
}

func TestDecodeState(t *testing.T) {
	t.Parallel()
	st, err := decodeState(state{Next: 5, Limit: 9, Incarnation: "c0ffee", Recent: []string{"a"}}.encode())
	if err != nil || st.Next != 5 || st.Limit != 9 {
		t.Fatalf("round trip: %+v, %v", st, err)
	}
	// A counter's next ID is its base plus its counter's version; a
	// state with no mode (written before there were two) is compare-and-set.
	if st, err := decodeState([]byte(`{"mode":"counter","base":7,"limit":9,"incarnation":"i"}`)); err != nil || !st.counter() || st.nextAt(2) != 9 {
		t.Errorf("a counter: %+v, %v", st, err)
	}
	if st, err := decodeState([]byte(`{"next":5,"limit":9,"incarnation":"i"}`)); err != nil || st.Mode != ModeCAS || st.nextAt(2) != 5 {
		t.Errorf("no mode: %+v, %v; want compare-and-set", st, err)
	}
	for _, bad := range []string{"", "12", `{"next":5,"limit":4,"incarnation":"i"}`, `{"next":-1,"limit":4,"incarnation":"i"}`, `{"next":1,"limit":4}`,
		`{"mode":"fast","limit":4,"incarnation":"i"}`, `{"mode":"counter","base":5,"limit":4,"incarnation":"i"}`,
		`{"mode":"counter","next":1,"base":1,"limit":4,"incarnation":"i"}`, `{"mode":"cas","base":1,"limit":4,"incarnation":"i"}`} {
		if _, err := decodeState([]byte(bad)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("decode %q: %v", bad, err)
		}
	}
}

func TestValidateName(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"orders", "a", "A.b_c-9"} {
		if err := ValidateName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".hidden", "a/b", "sp ace", "é", string(make([]byte, 101))} {
		if err := ValidateName(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
