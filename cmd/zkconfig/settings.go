package main

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/recipes/config"
	"zkspeaker/recoverable"
)

// commonFlags are the flags of every command that talks to ZooKeeper. Each
// command has its own copy, so that they go after the command's name:
// `zkconfig watch -s host:2181 colour`. logLevel is the command's default:
// info for update and watch, which run on and tell how they fare; warn for
// set and get, whose output a script may read.
func commonFlags(logLevel string) []cli.Flag {
	return []cli.Flag{
		cmdline.ServersFlag(),
		&cli.StringFlag{Name: "path", Value: config.DefaultBase, Usage: "the znode under which keys live, `/znode/path`; KEY is its child"},
		cmdline.SessionTimeoutFlag(),
		cmdline.AuthFlag("znodes zkconfig creates then only this identity may change"),
		cmdline.LogLevelFlagDefault(logLevel),
	}
}

// settings are the common flags after every one was checked.
type settings struct {
	cmdline.ZooKeeper
	base string
}

// parseSettings checks the common flags, before anything is sent.
func parseSettings(c *cli.Context) (settings, error) {
	z, err := cmdline.ParseZooKeeper(c)
	if err != nil {
		return settings{}, err
	}
	s := settings{ZooKeeper: z, base: c.String("path")}
	if err := config.ValidateBase(s.base); err != nil {
		return s, cmdline.BadFlag("path", "%s", cmdline.Reason(err))
	}
	return s, nil
}

// args returns the command's arguments, named as in its usage (KEY,
// VALUE), after checking that there are exactly that many and that the key
// is valid.
func args(c *cli.Context, names ...string) ([]string, error) {
	got, err := cmdline.Args(c, names...)
	if err != nil {
		return nil, err
	}
	if err := config.ValidateKey(got[0]); err != nil {
		return nil, cmdline.Usage("%s %q: %s", names[0], got[0], cmdline.Reason(err))
	}
	return got, nil
}

// connect starts a client with retry's retries for each single request,
// and a Store on it that creates znodes with the ACL that --auth asks for.
func (s settings) connect(log *slog.Logger, retry recoverable.RetryCounterFactory, storeOpts ...config.Option) (*recoverable.RecoverableZookeeper, *config.Store, error) {
	rz, _, err := s.Connect(log, recoverable.WithRetry(retry))
	if err != nil {
		return nil, nil, err
	}
	store, err := config.New(rz, append([]config.Option{config.WithBase(s.base)}, storeOpts...)...)
	if err != nil {
		rz.Close()
		return nil, nil, err
	}
	return rz, store, nil
}

// closeWithin closes rz, but returns after d even when ZooKeeper does not
// answer the close: the session then expires on its own, and the process
// exits, which ends the close's goroutine with it. When no session is held
// (it expired, as the plain updater's does), there is nothing to warn
// about; go-zookeeper may still wait out its own second, racing its
// reconnect loop for a close request that no server will see.
func closeWithin(rz *recoverable.RecoverableZookeeper, log *slog.Logger, d time.Duration) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		rz.Close()
	}()
	select {
	case <-done:
	case <-time.After(d):
		if rz.SessionID() != 0 {
			log.Warn("ZooKeeper did not answer the close in time; the session will expire on its own")
		}
	}
}

// stamp is the time at the head of each line of update and watch.
func stamp(t time.Time) string { return t.Format("15:04:05.000") }

// line is one value as update and watch print it: the same format, so that
// the watcher's output reads as the updater's with some lines missing.
func line(t time.Time, path, value string) string {
	return fmt.Sprintf("%s %s = %s\n", stamp(t), path, value)
}
