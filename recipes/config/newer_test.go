package config

import "testing"

// What Watch sends again: a later write, even of the same data; the key
// appearing or vanishing. Not a read of an older write, as a lagging server
// can return, and not the same write twice.
func TestNewer(t *testing.T) {
	t.Parallel()
	missing := Value{Key: "k"}
	v5 := Value{Key: "k", Exists: true, Data: "a", Zxid: 5}
	for _, tc := range []struct {
		name    string
		v, last Value
		want    bool
	}{
		{"a later write of the same data", Value{Key: "k", Exists: true, Data: "a", Zxid: 6}, v5, true},
		{"a later write", Value{Key: "k", Exists: true, Data: "b", Zxid: 9}, v5, true},
		{"the same write", v5, v5, false},
		{"an older write, from a lagging server", Value{Key: "k", Exists: true, Data: "z", Zxid: 4}, v5, false},
		{"created", v5, missing, true},
		{"deleted", missing, v5, true},
		{"still missing", missing, missing, false},
	} {
		if got := newer(tc.v, tc.last); got != tc.want {
			t.Errorf("%s: newer = %v, want %v", tc.name, got, tc.want)
		}
	}
}
