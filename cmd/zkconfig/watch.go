package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/metrics"
	"zkspeaker/recipes/config"
	"zkspeaker/recoverable"
)

func watchCommand() *cli.Command {
	return &cli.Command{
		Name:      "watch",
		Usage:     "print each value of KEY it sees, with the time it saw it: the chapter's ConfigWatcher",
		ArgsUsage: "KEY",
		Flags:     append(commonFlags("info"), metrics.Flag()),
		Action:    runWatch,
	}
}

// watchRetry paces the watcher's single requests; the Store's Watch reads
// again after a failure for as long as it runs, so one attempt each is
// enough here.
var watchRetry = recoverable.RetryCounterFactory{MaxRetries: 0, Interval: time.Millisecond}

func runWatch(c *cli.Context) error {
	a, err := args(c, "KEY")
	if err != nil {
		return err
	}
	s, err := parseSettings(c)
	if err != nil {
		return err
	}
	addr, err := metrics.Parse(c)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	log := s.Logger()
	ms, err := metrics.Listen(addr, log) // first: a port in use starts nothing
	if err != nil {
		return err
	}
	defer ms.Close()
	rz, store, err := s.connect(log, watchRetry)
	if err != nil {
		return err
	}
	defer closeWithin(rz, log, time.Second)
	if err := cmdline.AwaitSession(ctx, log, rz, s.Servers, s.SessionTimeout); err != nil {
		return quiet(ctx, err) // nothing to say after Ctrl-C
	}
	path, _ := store.Path(a[0])
	log.Info("watching " + path)
	values, err := store.Watch(ctx, a[0])
	if err != nil {
		return err
	}
	values = registerWatch(ctx, ms, rz, values)
	defer ms.Serve(ctx)()
	printValues(os.Stdout, path, values, func(msg string) { log.Info(msg, "key", a[0]) })
	return nil
}

// printValues prints each value as it comes, until the channel closes; an
// absent key is said on the log, not printed, since stdout holds values.
func printValues(w io.Writer, path string, values <-chan config.Value, say func(string)) {
	for v := range values {
		if !v.Exists {
			say(path + " does not exist; waiting for it to be written")
			continue
		}
		io.WriteString(w, line(time.Now(), path, v.Data)) //nolint:errcheck // stdout gone: nothing to tell
	}
}
