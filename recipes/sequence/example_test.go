package sequence_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// servers is a real ZooKeeper server for the examples, started by TestMain.
var servers []string

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, &servers))
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func session() *recoverable.RecoverableZookeeper {
	rz, err := recoverable.Connect(servers, 2*time.Second, recoverable.WithLogger(quiet))
	if err != nil {
		panic(err)
	}
	return rz
}

// An operator creates the sequence "orders". Until a persistence process
// has stored a reservation, nobody may hand out an ID: the limit sits at
// the start. The persistence leader stores a reservation in its directory,
// raises the limit to it, and the worker takes IDs, one or a batch at a
// time.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, persistZK, workerZK := session(), session(), session()
	defer admin.Close()
	defer persistZK.Close()
	defer workerZK.Close()
	root := sequence.WithRoot("/example-sequences")

	if err := sequence.Create(ctx, admin, "orders", 100, root); err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "seqid-example-")
	defer os.RemoveAll(dir)
	store, err := sequence.OpenFileStore(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := sequence.NewPersister(ctx, persistZK, store, root, sequence.WithElection("/example-seqid-persist"),
		sequence.WithBlock(50))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()

	orders, err := sequence.Open(workerZK, "orders", root)
	if err != nil {
		fmt.Println(err)
		return
	}
	id, err := orders.Next(ctx) // waits until the leader has raised the limit
	fmt.Println("first order:", id, err)
	first, err := orders.NextN(ctx, 10)
	fmt.Println("a batch of ten from:", first, err)
	id, _ = orders.Next(ctx)
	fmt.Println("next order:", id)

	stored, _ := store.All(ctx)
	fmt.Println("the store's reservation is above every ID:", stored["orders"].Value > id)

	_ = sequence.Delete(ctx, admin, "orders", root)
	// Output:
	// first order: 100 <nil>
	// a batch of ten from: 101 <nil>
	// next order: 111
	// the store's reservation is above every ID: true
}

// A dashboard follows a sequence without taking part, as zkview does:
// Inspect reads its next ID and limit, and leaves a watch that fires at
// its next change, here the three IDs a worker takes at once.
func ExampleInspect() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, persistZK := session(), session()
	defer admin.Close()
	defer persistZK.Close()
	root := sequence.WithRoot("/example-inspect")
	if err := sequence.Create(ctx, admin, "tickets", 7, root); err != nil {
		fmt.Println(err)
		return
	}
	_, _, err := sequence.Inspect(ctx, admin, "/example-inspect/nothing")
	fmt.Println("a missing sequence:", err)

	dir, _ := os.MkdirTemp("", "seqid-example-")
	defer os.RemoveAll(dir)
	store, _ := sequence.OpenFileStore(dir)
	p, err := sequence.NewPersister(ctx, persistZK, store, root, sequence.WithElection("/example-inspect-persist"),
		sequence.WithBlock(50))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	worker, _ := sequence.Open(admin, "tickets", root)
	first, _ := worker.Next(ctx) // once the leader has raised the limit
	fmt.Println("first ticket:", first)

	info, wake, _ := sequence.Inspect(ctx, admin, "/example-inspect/tickets")
	fmt.Printf("%s: next %d, limit above it: %v\n", info.Name, info.Next, info.Limit > info.Next)
	_, _ = worker.NextN(ctx, 3)
	ev := <-wake
	info, _, _ = sequence.Inspect(ctx, admin, "/example-inspect/tickets")
	fmt.Printf("the watch fired (%v); next %d\n", ev.Type, info.Next)
	// Output:
	// a missing sequence: sequence: no such sequence
	// first ticket: 7
	// tickets: next 8, limit above it: true
	// the watch fired (EventNodeDataChanged); next 11
}

// A web server's 32 request handlers share one Sequence, each taking a
// batch of three invoice numbers at the same moment. They do not fight
// over the znode's version: the calls that overlap are combined into one
// compare-and-set, and each handler gets a range of its own.
func ExampleSequence_NextN() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, persistZK := session(), session()
	defer admin.Close()
	defer persistZK.Close()
	root := sequence.WithRoot("/example-combine")
	if err := sequence.Create(ctx, admin, "invoices", 1, root); err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "seqid-example-")
	defer os.RemoveAll(dir)
	store, _ := sequence.OpenFileStore(dir)
	p, err := sequence.NewPersister(ctx, persistZK, store, root, sequence.WithElection("/example-combine-persist"),
		sequence.WithBlock(1000))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	invoices, _ := sequence.Open(admin, "invoices", root)

	firsts := make(chan int64, 32)
	var handlers sync.WaitGroup
	for range 32 {
		handlers.Add(1)
		go func() {
			defer handlers.Done()
			first, err := invoices.NextN(ctx, 3)
			if err != nil {
				fmt.Println(err)
			}
			firsts <- first
		}()
	}
	handlers.Wait()
	close(firsts)
	taken := map[int64]bool{}
	for first := range firsts {
		for id := first; id < first+3; id++ {
			taken[id] = true
		}
	}
	noHole := true
	for id := int64(1); id <= 96; id++ {
		noHole = noHole && taken[id]
	}
	st := invoices.Stats()
	fmt.Println("IDs handed out:", st.Handed, "each once, 1 to 96:", len(taken) == 96 && noHole)
	fmt.Println("fewer writes than calls:", st.Writes < 32)
	// Output:
	// IDs handed out: 96 each once, 1 to 96: true
	// fewer writes than calls: true
}
