package group_test

import (
	"slices"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/group"
)

// A member whose connection is cut, silently, and comes back before its
// session expires stays a member: the same znode (czxid), the same
// session, no rejoin. Readers never see it leave.
func TestCutWithinSessionStaysMember(t *testing.T) {
	t.Parallel()
	const s = 4 * time.Second // the client notices the cut after 2/3 s; the server waits s
	admin := connect(t, server(t), session)
	g := created(t, admin)
	proxy := zktest.NewProxy(t, server(t))
	m := join(t, newGroup(t, connect(t, proxy.Addr(), s)), "duck")
	before := stat(t, admin, m.Path())

	w := g.Watch()
	t.Cleanup(w.Close)
	<-w.Changes() // the first reading: duck

	proxy.Cut()
	waitStatus(t, m, 2*s, "the member notices the cut", func(st group.Status) bool { return st.State == group.StateDisconnected })
	proxy.Heal()
	after := waitStatus(t, m, s, "the member reconnects", func(st group.Status) bool { return st.State == group.StateMember })

	if after.Rejoined || after.Session != before.EphemeralOwner || after.Czxid != before.Czxid {
		t.Fatalf("after the cut: %+v; want the same session 0x%x and czxid %d, no rejoin", after, before.EphemeralOwner, before.Czxid)
	}
	now := stat(t, admin, m.Path())
	if now == nil || now.Czxid != before.Czxid || now.EphemeralOwner != before.EphemeralOwner {
		t.Fatalf("znode after the cut: %+v; want the one from before: %+v", now, before)
	}
	select {
	case ch := <-w.Changes():
		t.Fatalf("a reader saw the membership change during a cut within the session: %+v", ch)
	case <-time.After(300 * time.Millisecond):
	}
}

// A cut longer than the session timeout: the server expires the session and
// removes the member; when the connection heals, go-zookeeper opens a new
// session and the Member joins again on it. One znode, the new session's.
func TestExpiryRejoinsOnNewSession(t *testing.T) {
	t.Parallel()
	admin, g, proxy, rz := proxied(t, session)
	m := join(t, newGroup(t, rz), "duck")
	before := stat(t, admin, m.Path())

	proxy.Cut()
	// The server's view is the proof of expiry: the ephemeral is gone.
	eventually(t, 3*session, "the server expires the cut member's session", func() bool { return stat(t, admin, m.Path()) == nil })
	if got := members(t, g); len(got) != 0 {
		t.Fatalf("members while duck's session is expired: %q", got)
	}
	proxy.Heal()
	after := waitStatus(t, m, 3*session, "the member rejoins", func(st group.Status) bool { return st.State == group.StateMember && st.Rejoined })

	now := stat(t, admin, m.Path())
	switch {
	case after.Session == before.EphemeralOwner:
		t.Fatalf("rejoined on the expired session 0x%x", after.Session)
	case now == nil || now.EphemeralOwner != after.Session || now.Czxid != after.Czxid:
		t.Fatalf("znode %+v, want an ephemeral of the new session 0x%x, czxid %d", now, after.Session, after.Czxid)
	case now.Czxid == before.Czxid:
		t.Fatalf("the znode has the old czxid %d: not created again", now.Czxid)
	}
	if got := members(t, g); !slices.Equal(got, []string{"duck"}) {
		t.Fatalf("members after the rejoin = %q, want duck once", got)
	}
}

// The create reaches the server, which makes the znode, but the reply is
// lost with the connection. The retry meets NodeExists; the znode is ours
// by its owner, so Join succeeds, with exactly one member and no false
// "already a member".
func TestLostCreateReplyLeavesOneMember(t *testing.T) {
	t.Parallel()
	admin, g, proxy, rz := proxied(t, 4*time.Second)
	proxy.ResetAfterCreate(g.Path() + "/")
	m := join(t, newGroup(t, rz), "duck")
	select {
	case <-proxy.Fired():
	default:
		t.Fatal("the trap never fired: the create's reply was not lost")
	}
	if got := members(t, g); !slices.Equal(got, []string{"duck"}) {
		t.Fatalf("members = %q, want duck once", got)
	}
	st := stat(t, admin, m.Path())
	if st == nil || st.EphemeralOwner != rz.SessionID() || m.Status().Czxid != st.Czxid {
		t.Fatalf("znode %+v, want the member's own (session 0x%x, czxid %d)", st, rz.SessionID(), m.Status().Czxid)
	}
}

// The create is applied, its reply lost, and the client kept away until
// its session has expired: the znode went with the session. The join goes
// on, on the new session, and leaves one member, the new session's.
func TestLostCreateReplyThenExpiry(t *testing.T) {
	t.Parallel()
	admin, g, proxy, rz := proxied(t, session)
	old := rz.SessionID()
	proxy.RefuseAfterCreate(g.Path() + "/")
	mine := newGroup(t, rz)
	ctx := bounded(t, 30*time.Second)
	joined := make(chan *group.Member, 1)
	go func() {
		m, err := mine.Join(ctx, "duck")
		if err != nil {
			t.Errorf("Join: %v", err)
		}
		joined <- m
	}()
	select {
	case <-proxy.Fired():
	case <-time.After(10 * time.Second):
		t.Fatal("the trap never fired")
	}
	eventually(t, 3*session, "the server expires the session and its znode", func() bool {
		return len(members(t, g)) == 0 && stat(t, admin, g.Path()+"/duck") == nil
	})
	proxy.Restore()
	m := <-joined
	if m == nil {
		t.FailNow()
	}
	t.Cleanup(func() { _ = m.Leave(ctx) })
	st := stat(t, admin, m.Path())
	if got := members(t, g); !slices.Equal(got, []string{"duck"}) || st == nil || st.EphemeralOwner == old || st.EphemeralOwner != rz.SessionID() {
		t.Fatalf("members %q, znode %+v; want duck once, owned by the new session 0x%x (old 0x%x)", got, st, rz.SessionID(), old)
	}
}

// An operator deletes a live member's znode (zkCli delete /zoo/duck). The
// member's watch on its own znode fires, and it creates the znode again, on
// the same session: it was not asked to leave.
func TestDeletedMemberJoinsAgain(t *testing.T) {
	t.Parallel()
	admin := connect(t, server(t), session)
	g := created(t, admin)
	m := join(t, newGroup(t, connect(t, server(t), session)), "duck")
	before := m.Status()
	if err := admin.Delete(bounded(t, 5*time.Second), m.Path(), -1); err != nil {
		t.Fatal(err)
	}
	after := waitStatus(t, m, 5*time.Second, "the member creates its znode again", func(st group.Status) bool {
		return st.State == group.StateMember && st.Czxid != before.Czxid
	})
	st := stat(t, admin, m.Path())
	if !after.Rejoined || after.Session != before.Session || st == nil || st.Czxid != after.Czxid || st.EphemeralOwner != before.Session {
		t.Fatalf("after the delete: status %+v, znode %+v; want a new znode of the same session 0x%x", after, st, before.Session)
	}
	if got := members(t, g); !slices.Equal(got, []string{"duck"}) {
		t.Fatalf("members = %q, want duck once", got)
	}
}
