package znodemonitor_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/faultproxy"
	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
	"zkspeaker/znodemonitor"
)

// A leader resigns, and the server applies its delete at once, but the
// answer takes longer than a second to come back (a proxy holds it for a
// quarter of the session timeout: a loaded server or a slow network). The
// resignation happened, and Resign must say so: it waits for the answer as
// long as the engine waits for any write, returns nil, and the log says
// the leader resigned. With a successor, the successor leads meanwhile and
// the resigner stays in line. Alone, the resigner races for the znode
// again only ResignPause after the answer came, as after any resignation,
// not at once.
func TestResignWaitsForALateDeleteAnswer(t *testing.T) {
	t.Parallel()
	for _, successor := range []bool{true, false} {
		name := map[bool]string{true: "successor", false: "alone"}[successor]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			resignWithALateAnswer(t, successor)
		})
	}
}

// resignWithALateAnswer is one run of TestResignWaitsForALateDeleteAnswer.
func resignWithALateAnswer(t *testing.T, successor bool) {
	const session = 8 * time.Second
	hold := session / 4 // past a second; far inside the session's life
	cluster, path := zktest.Shared(t), zktest.Path(t)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	logs := &zktest.Buffer{}
	rz := zktest.Connect(t, []string{proxy.Addr()}, session, recoverable.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("the resigner's log:\n" + logs.String())
		}
	})
	l := zktest.NewListener("resigner")
	m, err := znodemonitor.New(rz, l, znodemonitor.WithPath(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	electiontest.WaitStatus(t, m, 10*time.Second, "the resigner leads", func(s nodemonitor.Status) bool { return s.State == nodemonitor.StateActive })
	var others []*electiontest.Candidate
	if successor {
		others = electiontest.Spawn(t, cluster.Servers(), 1, single(znodemonitor.WithPath(path)))
	}

	answered, release := proxy.HoldReply(faultproxy.OpDelete)
	t.Cleanup(release)
	type outcome struct {
		err error
		at  time.Time
	}
	done := make(chan outcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*session)
		defer cancel()
		err := m.Resign(ctx)
		done <- outcome{err, time.Now()}
	}()
	select {
	case <-answered: // the server applied the delete; its answer is held
	case <-time.After(10 * time.Second):
		t.Fatal("the delete never reached the server")
	}
	if successor {
		electiontest.WaitStatus(t, others[0].Monitor, session, "the successor leads", func(s nodemonitor.Status) bool { return s.State == nodemonitor.StateActive })
	}
	time.Sleep(hold)
	released := time.Now()
	release()

	var got outcome
	select {
	case got = <-done:
	case <-time.After(2 * session):
		t.Fatal("Resign never returned")
	}
	if got.err != nil {
		t.Errorf("Resign returned %v, %v after the answer was released; want nil: the server deleted our znode", got.err, got.at.Sub(released))
	}
	if got.at.Before(released) {
		t.Errorf("Resign returned %v before the delete's answer came", released.Sub(got.at))
	}
	if !strings.Contains(logs.String(), "resigned: stopped speaking and left the line") {
		t.Error("the log does not say that the leader resigned")
	}
	if successor {
		electiontest.OneLeader(t, others, znodemonitor.ResignPause+electiontest.Slack)
		if l.Speaking() || l.Terms() != 1 {
			t.Fatalf("the resigner speaks (%v) or led again (%d terms) while its successor leads", l.Speaking(), l.Terms())
		}
		return
	}
	electiontest.Eventually(t, znodemonitor.ResignPause+session, "the resigner leads again", func() bool { return l.Terms() == 2 })
	if again := l.LastStart().Sub(released); again < znodemonitor.ResignPause {
		t.Fatalf("the resigner led again %v after the delete's answer came, want ResignPause (%v) later at the earliest", again, znodemonitor.ResignPause)
	}
}
