package fourletter_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"zkspeaker/internal/ensemble"
	"zkspeaker/internal/fourletter"
	"zkspeaker/internal/testkit/leakcheck"
	"zkspeaker/internal/testkit/zktest"
)

// TestMain fails the package when its tests leave a goroutine running.
func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }

// TestSessionsAndWatches asks a real server who is connected and what they
// watch, and whether anything answers where nothing runs.
func TestSessionsAndWatches(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	rz := zktest.Connect(t, cluster.Servers(), 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, _, err := rz.ExistsW(ctx, "/not/there"); err != nil {
		t.Fatal(err)
	}
	conns, err := fourletter.Sessions(ctx, cluster.Server(0))
	i := slices.IndexFunc(conns, func(c fourletter.Conn) bool { return c.ID == rz.SessionID() })
	if err != nil || i < 0 {
		t.Fatalf("cons: %+v, %v; want our session 0x%x among them", conns, err, rz.SessionID())
	}
	// The server heard from us at the ExistsW above, or at a ping since:
	// within a third of the session timeout, on this machine's clock.
	ours := conns[i]
	if age := time.Since(ours.Heard); ours.Timeout != 5*time.Second || ours.Heard.IsZero() || age < 0 || age > ours.Timeout/3+time.Second {
		t.Errorf("cons says of our session: timeout %v, last heard %v ago (at %v); want 5s, and within a ping's time",
			ours.Timeout, age, ours.Heard)
	}
	w, err := fourletter.Watches(ctx, cluster.Server(0))
	if err != nil || !slices.Contains(w[rz.SessionID()], "/not/there") {
		t.Errorf("wchc: %v, %v; want our session watching /not/there", w, err)
	}
	if !fourletter.AnyAnswers(ctx, cluster.Servers()) {
		t.Error("a running server does not answer ruok")
	}
	base, err := ensemble.FreeBase(1)
	if err != nil {
		t.Fatal(err)
	}
	probe, cancel2 := context.WithTimeout(ctx, 2*time.Second)
	defer cancel2()
	if fourletter.AnyAnswers(probe, []string{fmt.Sprintf("127.0.0.1:%d", base)}) {
		t.Error("something answers where nothing listens")
	}
}
