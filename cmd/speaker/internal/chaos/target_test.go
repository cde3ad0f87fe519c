package chaos

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/speaker"
)

// Processes that stand side by side, as a group's members do, have no
// leader: the out file's last line is merely the last member the operator
// listed. A fault drawn for "the leader" hits the
// member the draw picked, and no fault is marked as the leader's, neither
// a process's nor an operator's delete of a member's znode.
func TestGroupFaultsHitNoLeader(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.txt")
	var lines []byte
	for _, m := range []string{"m1", "m2", "m3"} {
		lines = speaker.Line{Time: t0, Name: m, Counter: 5}.Append(lines)
	}
	if err := os.WriteFile(out, lines, 0o644); err != nil {
		t.Fatal(err)
	}
	s := &soak{cfg: &Config{Recipe: sideBySide.Name, Session: 2 * time.Second},
		op: &operator{path: members, out: out, members: true}}
	for _, name := range []string{"m1", "m2", "m3", "watcher"} {
		s.speakers = append(s.speakers, &speakerProc{name: name})
	}
	p, ok := s.plan(context.Background(), draw{kind: Kill, toLeader: true, pick: 0})
	if !ok || p.speaker.name != "m1" || p.leader {
		t.Errorf("a kill drawn for the leader, pick 0: target %s, leader %v; want m1, not a leader's", p.speaker.name, p.leader)
	}
	s.release(targetOf(p))
	if p, _ := s.plan(context.Background(), draw{kind: DeleteLeader, toLeader: true, pick: 2}); p.leader || p.pick != 2 {
		t.Errorf("an operator's delete in a group: leader %v, pick %d; want no leader, and the draw's pick 2", p.leader, p.pick)
	}
}

// The operator deletes the member's znode the draw picked, not always the
// first by name: each member's own delete must come up in a soak.
// members is where the members' znodes are in these tests.
const members = "/chaos-members"

func TestOperatorDeletesTheMemberThePlanPicked(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: runs a ZooKeeper server")
	}
	servers := zktest.Start(t, 1).Servers()
	op, err := newOperator(servers, members, filepath.Join(t.TempDir(), "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(op.close)
	op.members = true
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, p := range []string{members, members + "/m1", members + "/m2", members + "/m3"} {
		if _, err := op.conn().Create(ctx, p, nil, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := op.deleteMember(ctx, 4) // 4 mod 3: the second of m1 m2 m3
	if err != nil || got != members+"/m2" {
		t.Fatalf("deleted %q (%v), want %s/m2", got, err, members)
	}
	left, err := op.conn().Children(ctx, members)
	slices.Sort(left)
	if err != nil || !slices.Equal(left, []string{"m1", "m3"}) {
		t.Errorf("members left: %v (%v), want m1 m3", left, err)
	}
}
