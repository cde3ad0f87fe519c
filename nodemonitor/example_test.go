package nodemonitor_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
	"zkspeaker/speaker"
)

// servers is a real ZooKeeper server for the examples, started by TestMain.
var servers []string

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, &servers))
}

// The articles' demo in one process: two Speakers share out.txt, each
// elected by its own NodeMonitor on its own session. Ann joined the line
// first, so she speaks; Bob watches her znode. When Ann leaves, her znode
// goes, Bob alone is woken, and he speaks.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir, err := os.MkdirTemp("", "nodemonitor-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "out.txt")
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))

	// join starts a speaker and its monitor, and waits until it has a
	// place in the line; speaks waits until it has written its first line.
	type candidate struct {
		*nodemonitor.Monitor
		speaks func() error
		leave  func()
	}
	join := func(name string) (*candidate, error) {
		spk, err := speaker.New(out, speaker.WithName(name), speaker.WithInterval(time.Hour), speaker.WithLogger(quiet))
		if err != nil {
			return nil, err
		}
		rz, err := recoverable.Connect(servers, 2*time.Second, recoverable.WithLogger(quiet))
		if err != nil {
			spk.Close()
			return nil, err
		}
		m, err := nodemonitor.New(rz, spk, nodemonitor.WithPath("/example-line"))
		if err != nil {
			rz.Close()
			spk.Close()
			return nil, err
		}
		c := &candidate{Monitor: m,
			speaks: func() error { return spk.Wait(ctx, 1) },
			leave:  func() { spk.Close(); m.Close(); rz.Close() }, // silence, znode, session: the order of a SIGTERM
		}
		for st := range m.Observe(ctx) {
			if st.Node != "" && (st.State == nodemonitor.StateActive || name != "ann") {
				fmt.Println(name, "joined:", st.State)
				return c, nil
			}
		}
		c.leave()
		return nil, ctx.Err()
	}

	ann, err := join("ann")
	if err == nil {
		err = ann.speaks()
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	bob, err := join("bob")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bob.leave()

	ann.leave()
	if err := bob.speaks(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("bob:", bob.State(), "after", bob.Notifications(), "notification")
	bob.leave()

	f, err := os.Open(out)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	tl, err := speaker.ReadTimeline(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, term := range tl.Terms {
		fmt.Println("out.txt:", term.Name, "spoke from line", term.FromCounter)
	}
	// Output:
	// ann joined: active
	// bob joined: inactive
	// bob: active after 1 notification
	// out.txt: ann spoke from line 1
	// out.txt: bob spoke from line 1
}
