package lock_test

import (
	"context"
	"fmt"
	"time"

	"zkspeaker/recipes/lock"
	"zkspeaker/recoverable"
)

// A dashboard, on a session of its own that contends for nothing, looks
// at a report's lock while Ann and Bob read it and Carol waits to write:
// both readers hold, and Carol waits for Bob, the one just ahead of her.
// This is how zkview and `speaker status` draw a lock.
func ExampleInspect() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dashboard := exampleSession()
	defer dashboard.Close()
	var v lock.View
	for _, c := range []struct {
		name string
		opts []lock.Option
	}{{"ann", []lock.Option{lock.Shared()}}, {"bob", []lock.Option{lock.Shared()}}, {"carol", nil}} {
		rz := exampleSession()
		defer rz.Close()
		l := lock.New(rz, "/example-inspect", c.name, c.opts...)
		wait, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = l.Lock(wait)
		}()
		defer func() { stop(); <-done; _ = l.Unlock(ctx) }()
		// Each stands in line before the next comes.
		for n := len(v.Line); len(v.Line) == n && ctx.Err() == nil; time.Sleep(10 * time.Millisecond) {
			v = lookAt(ctx, dashboard, "/example-inspect")
		}
	}

	for _, c := range v.Line {
		if c.Holds {
			fmt.Println(c.Data, "holds the", c.Mode(), "lock")
			continue
		}
		for _, ahead := range v.Line {
			if ahead.Name == c.Waits {
				fmt.Println(c.Data, "waits to", c.Mode(), "for", ahead.Data)
			}
		}
	}
	// Output:
	// ann holds the read lock
	// bob holds the read lock
	// carol waits to write for bob
}

// lookAt looks at the lock at path once: the watch Inspect leaves is not
// wanted, and its goroutine ends with the look's context.
func lookAt(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string) lock.View {
	look, cancel := context.WithCancel(ctx)
	defer cancel()
	v, _, err := lock.Inspect(look, rz, path)
	if err != nil {
		fmt.Println(err)
	}
	return v
}
