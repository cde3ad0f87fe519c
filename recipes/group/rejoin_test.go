package group_test

import (
	"testing"
	"time"

	"zkspeaker/internal/faultproxy"
	"zkspeaker/recipes/group"
)

// Two expiries in a row: the member's session S1 expires; on S2 its rejoin
// creates the znode but loses the reply, and S2 expires too before the
// client is back; the rejoin ends on S3. The disconnect and expiry of S2,
// which came while the rejoin ran, are about a session the member no
// longer holds: they must not turn the member on S3 into "expired".
func TestEventsOfAnEarlierSessionLeaveTheRejoinedMemberAlone(t *testing.T) {
	t.Parallel()
	admin, g, proxy, rz := proxied(t, session)
	m := join(t, newGroup(t, rz), "duck")
	s1 := m.Status().Session

	proxy.Cut()
	eventually(t, 3*session, "the server expires S1", func() bool { return stat(t, admin, m.Path()) == nil })
	proxy.RefuseAfterCreate(g.Path() + "/")
	proxy.Heal()
	select {
	case <-proxy.Fired():
	case <-time.After(3 * session):
		t.Fatal("the rejoin on S2 sent no create")
	}
	var s2 int64
	eventually(t, 3*session, "the server makes S2's znode", func() bool {
		st := stat(t, admin, m.Path())
		if st != nil {
			s2 = st.EphemeralOwner
		}
		return st != nil
	})
	eventually(t, 3*session, "the server expires S2", func() bool { return stat(t, admin, m.Path()) == nil })
	proxy.Restore()

	st := waitStatus(t, m, 3*session, "the member rejoins on S3", func(st group.Status) bool {
		return st.State == group.StateMember && st.Session != s1 && st.Session != s2
	})
	time.Sleep(500 * time.Millisecond) // events queued behind the rejoin are read by now
	if now := m.Status(); now.State != group.StateMember || now.Session != st.Session {
		t.Fatalf("status %+v after rejoining on 0x%x (S1 0x%x, S2 0x%x); want a member of S3", now, st.Session, s1, s2)
	}
	if z := stat(t, admin, m.Path()); z == nil || z.EphemeralOwner != st.Session {
		t.Fatalf("znode %+v, want S3's (0x%x)", z, st.Session)
	}
}

// After its session expires, a Watcher reads the group again on the new
// session; that session may be on a follower behind what the Watcher
// already reported, so it syncs first. The proxy sees the sync go out.
func TestWatcherSyncsBeforeReadingOnANewSession(t *testing.T) {
	t.Parallel()
	admin, g, proxy, rz := proxied(t, session)
	expired := waitExpired(t, admin, rz)
	mine := newGroup(t, rz)
	w := mine.Watch()
	t.Cleanup(w.Close)
	<-w.Changes() // the first reading

	proxy.Cut()
	duck := join(t, g, "duck") // a change while the Watcher is away
	expired()
	synced := proxy.NotifyReply(faultproxy.OpSync)
	proxy.Heal()
	select {
	case ch := <-w.Changes():
		select {
		case <-synced:
		default:
			t.Fatalf("the Watcher read %+v on its new session without a sync first", ch)
		}
		if len(ch.Joined) != 1 || ch.Joined[0] != duck.Name() {
			t.Fatalf("change %+v, want duck joined", ch)
		}
	case <-time.After(4 * session):
		t.Fatal("no change after the heal")
	}
}
