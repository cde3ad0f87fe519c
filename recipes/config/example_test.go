package config_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/config"
	"zkspeaker/recoverable"
)

// servers is a real ZooKeeper server for the examples, started by TestMain.
var servers []string

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, &servers))
}

// A master writes the colour; a worker follows it. Watch hands the worker
// the value there is now, then each new one: the chapter's ConfigUpdater
// and ConfigWatcher, in one program.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	rz, err := recoverable.Connect(servers, 2*time.Second, recoverable.WithLogger(quiet))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rz.Close()
	store, err := config.New(rz, config.WithBase("/example-config"))
	if err != nil {
		fmt.Println(err)
		return
	}

	// The first write creates /example-config and /example-config/colour.
	if err := store.Write(ctx, "colour", "blue"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("the master wrote blue")

	watching, stop := context.WithCancel(ctx)
	defer stop()
	values, err := store.Watch(watching, "colour")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("the worker reads", (<-values).Data)

	// The second write only sets the znode; the worker's watch fires and it
	// reads the key again.
	if err := store.Write(ctx, "colour", "green"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("the master wrote green")
	fmt.Println("the worker reads", (<-values).Data)

	stop()
	for range values { // Watch closes the channel once its goroutine ends
	}
	value, err := store.Read(ctx, "colour")
	fmt.Println("a latecomer reads", value, err)

	// The master retires the key.
	if err := store.Delete(ctx, "colour"); err != nil {
		fmt.Println(err)
		return
	}
	_, err = store.Read(ctx, "colour")
	fmt.Println(err)
	// Output:
	// the master wrote blue
	// the worker reads blue
	// the master wrote green
	// the worker reads green
	// a latecomer reads green <nil>
	// config: no such key: colour (/example-config/colour)
}

// A watch fires once. Two writes after a read with a watch make one event;
// only a new read sets a new watch, and sees the latest value.
func ExampleStore_ReadW() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	rz, err := recoverable.Connect(servers, 2*time.Second, recoverable.WithLogger(quiet))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rz.Close()
	store, err := config.New(rz, config.WithBase("/example-readw"))
	if err != nil {
		fmt.Println(err)
		return
	}

	v, changed, err := store.ReadW(ctx, "size")
	fmt.Println("exists:", v.Exists, err)
	for _, size := range []string{"S", "M", "L"} {
		if err := store.Write(ctx, "size", size); err != nil {
			fmt.Println(err)
			return
		}
	}
	for ev := range changed {
		fmt.Println("event:", ev.Type)
	}
	v, changed, err = store.ReadW(ctx, "size")
	fmt.Println("read again:", v.Data, v.Version, err)

	// Deleting the key fires the new watch.
	if err := store.Delete(ctx, "size"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("event:", (<-changed).Type)
	// Output:
	// exists: false <nil>
	// event: EventNodeCreated
	// read again: L 2 <nil>
	// event: EventNodeDeleted
}
