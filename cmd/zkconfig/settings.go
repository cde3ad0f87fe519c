package main

import (
	"fmt"
	"log/slog"
	"os"
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
		&cli.StringFlag{Name: "session-timeout", Value: "5s", Usage: "session timeout to ask for, a `duration`; the server grants 2 to 20 ticks"},
		cmdline.AuthFlag("znodes zkconfig creates then only this identity may change"),
		&cli.StringFlag{Name: "log-level", Value: logLevel, Usage: "debug, info, warn or error; the log goes to stderr"},
	}
}

// settings are the common flags after every one was checked.
type settings struct {
	servers        []string
	base           string
	sessionTimeout time.Duration
	auth           string
	logLevel       slog.Level
}

// parseSettings checks the common flags, before anything is sent.
func parseSettings(c *cli.Context) (settings, error) {
	s := settings{base: c.String("path")}
	var err error
	if s.servers, err = cmdline.ParseServers(c.String("servers")); err != nil {
		return s, err
	}
	if err := config.ValidatePath(s.base); err != nil {
		return s, cmdline.BadFlag("path", "%s", cmdline.Reason(err))
	}
	if s.sessionTimeout, err = cmdline.PositiveDuration(c, "session-timeout"); err != nil {
		return s, err
	}
	if s.auth, err = cmdline.ParseAuth(c); err != nil {
		return s, err
	}
	if err := s.logLevel.UnmarshalText([]byte(c.String("log-level"))); err != nil {
		return s, cmdline.BadFlag("log-level", "unknown value %q (want debug, info, warn or error)", c.String("log-level"))
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

// logger writes the log to stderr at the chosen level.
func (s settings) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: s.logLevel}))
}

// connect starts a client with retry's retries for each single request,
// and a Store on it that creates znodes with the ACL that --auth asks for.
func (s settings) connect(log *slog.Logger, retry recoverable.RetryCounterFactory, storeOpts ...config.Option) (*recoverable.RecoverableZookeeper, *config.Store, error) {
	auth, acl := recoverable.Access(s.auth)
	opts := append([]recoverable.Option{recoverable.WithRetry(retry), recoverable.WithLogger(log)}, auth...)
	rz, err := recoverable.Connect(s.servers, s.sessionTimeout, opts...)
	if err != nil {
		return nil, nil, err
	}
	store, err := config.New(rz, append([]config.Option{config.WithBase(s.base), config.WithACL(acl), config.WithLogger(log)}, storeOpts...)...)
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
