package znodemonitor_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
	"zkspeaker/znodemonitor"
)

// servers is a real ZooKeeper server for the examples, started by TestMain.
var servers []string

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, &servers))
}

// announcer is the smallest Listener: it says what it is told.
type announcer string

func (a announcer) StartSpeaking(func(context.Context) (int64, time.Time, error)) {
	fmt.Println(a, "may speak")
}
func (a announcer) StopSpeaking()       { fmt.Println(a, "must be silent") }
func (a announcer) ProcessName() string { return string(a) }

// Single-file election: Ann creates /example-single first and holds it; Bob
// finds it taken and watches it. When Ann releases it, Bob's watch fires,
// he creates it, and he leads. With many waiters, every one of them would
// have been woken to race: the herd that nodemonitor avoids.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))

	run := func(name string) (*nodemonitor.Monitor, *recoverable.RecoverableZookeeper, error) {
		rz, err := recoverable.Connect(servers, 2*time.Second, recoverable.WithLogger(quiet))
		if err != nil {
			return nil, nil, err
		}
		m, err := znodemonitor.New(rz, announcer(name), znodemonitor.WithPath("/example-single"))
		if err != nil {
			rz.Close()
		}
		return m, rz, err
	}
	// until waits for the first status of m that cond accepts.
	until := func(m *nodemonitor.Monitor, cond func(nodemonitor.Status) bool) nodemonitor.Status {
		for st := range m.Observe(ctx) {
			if cond(st) {
				return st
			}
		}
		return nodemonitor.Status{}
	}

	ann, annZK, err := run("ann")
	if err != nil {
		fmt.Println(err)
		return
	}
	until(ann, func(st nodemonitor.Status) bool { return st.State == nodemonitor.StateActive })
	bob, bobZK, err := run("bob")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bobZK.Close()
	st := until(bob, func(st nodemonitor.Status) bool { return st.Node != "" })
	fmt.Println("bob waits for", st.Node, "as", st.State)

	ann.Close() // silent first, then the znode goes
	annZK.Close()
	until(bob, func(st nodemonitor.Status) bool { return st.State == nodemonitor.StateActive })
	bob.Close()
	// Output:
	// ann may speak
	// bob waits for /example-single as inactive
	// ann must be silent
	// bob may speak
	// bob must be silent
}
