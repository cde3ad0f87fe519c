package nodemonitor_test

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"zkspeaker/internal/zktest"
	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
)

// servers is a real ZooKeeper server for the examples, started by TestMain.
var servers []string

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, &servers))
}

// announcer is a Listener that says what it is told.
type announcer struct {
	name  string
	spoke chan struct{}
}

func (a announcer) StartSpeaking()      { fmt.Println(a.name, "starts speaking"); a.spoke <- struct{}{} }
func (a announcer) StopSpeaking()       { fmt.Println(a.name, "stops speaking") }
func (a announcer) ProcessName() string { return a.name }

// Two candidates queue under /example. Ann joined first, so she leads; Bob
// watches her znode. When Ann leaves, only Bob is woken, and he leads.
func Example() {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	join := func(name string) (*nodemonitor.Monitor, *recoverable.RecoverableZookeeper, announcer) {
		rz, _ := recoverable.Connect(servers, 2*time.Second, recoverable.WithLogger(quiet))
		a := announcer{name: name, spoke: make(chan struct{}, 1)}
		m, _ := nodemonitor.New(rz, a, nodemonitor.WithPath("/example"), nodemonitor.WithLogger(quiet))
		return m, rz, a
	}

	ann, annZK, annSays := join("ann")
	<-annSays.spoke
	bob, bobZK, bobSays := join("bob")
	for bob.Node() == "" {
		time.Sleep(time.Millisecond) // until Bob has joined the line
	}
	fmt.Println("bob is", bob.State())

	ann.Close() // stop speaking, delete the znode
	annZK.Close()
	<-bobSays.spoke
	fmt.Println("bob is", bob.State())

	bob.Close()
	bobZK.Close()
	// Output:
	// ann starts speaking
	// bob is inactive
	// ann stops speaking
	// bob starts speaking
	// bob is active
	// bob stops speaking
}
