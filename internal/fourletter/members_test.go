package fourletter

import (
	"slices"
	"testing"
)

func TestParseMembers(t *testing.T) {
	given := []string{"127.0.0.1:2181"}
	for _, c := range []struct {
		name, config string
		want         []string
		complete     bool
	}{
		{"standalone", "", given, true},
		{"client ports", "server.1=127.0.0.1:3181:4181:participant;127.0.0.1:2181\nserver.2=127.0.0.1:3182:4182:participant;127.0.0.1:2182\nversion=0",
			[]string{"127.0.0.1:2181", "127.0.0.1:2182"}, true},
		{"listen everywhere", "server.1=zk1:2888:3888:participant;0.0.0.0:2181\nserver.2=[::1]:2888:3888:observer;2182",
			[]string{"127.0.0.1:2181", "zk1:2181", "[::1]:2182"}, true},
		{"no client ports", "server.1=127.0.0.1:3181:4181:participant\nserver.2=127.0.0.1:3182:4182:participant",
			given, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := parseMembers(c.config, given)
			if !slices.Equal(m.Addrs, c.want) || m.Complete != c.complete || !m.Known {
				t.Errorf("parseMembers(%q) = %+v, want addrs %v, complete %v", c.config, m, c.want, c.complete)
			}
		})
	}
}
