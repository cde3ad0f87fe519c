package main

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/nodemonitor"
	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// commonFlags are the flags of every command that talks to ZooKeeper,
// after the command's name: `seqid next -s host:2181 orders`.
func commonFlags(logLevel string) []cli.Flag {
	return []cli.Flag{
		cmdline.ServersFlag(),
		&cli.StringFlag{Name: "root", Value: sequence.DefaultRoot, Usage: "the znode under which sequences live, `/znode/path`"},
		&cli.StringFlag{Name: "session-timeout", Value: "5s", Usage: "session timeout to ask for, a `duration`"},
		&cli.StringFlag{Name: "log-level", Value: logLevel, Usage: "debug, info, warn or error; the log goes to stderr"},
		cmdline.AuthFlag("the znodes seqid creates then only this identity may change, so every client must give it"),
	}
}

// settings are the common flags after every one was checked.
type settings struct {
	servers        []string
	root           string
	sessionTimeout time.Duration
	logLevel       slog.Level
	auth           string // user:password, or "" for open znodes
}

// parseSettings checks the common flags, before anything is sent.
func parseSettings(c *cli.Context) (settings, error) {
	s := settings{root: c.String("root")}
	var err error
	if s.servers, err = cmdline.ParseServers(c.String("servers")); err != nil {
		return s, err
	}
	if err := nodemonitor.ValidatePath(s.root); err != nil {
		return s, cmdline.BadFlag("root", "%s", cmdline.Reason(err))
	}
	if s.sessionTimeout, err = cmdline.PositiveDuration(c, "session-timeout"); err != nil {
		return s, err
	}
	if s.logLevel, err = cmdline.ParseLogLevel(c); err != nil {
		return s, err
	}
	if s.auth, err = cmdline.ParseAuth(c); err != nil {
		return s, err
	}
	return s, nil
}

func (s settings) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: s.logLevel}))
}

// connect starts a client and waits, within the session timeout and a
// few seconds more, until it is connected.
func (s settings) connect(log *slog.Logger) (*recoverable.RecoverableZookeeper, error) {
	auth, _ := recoverable.Access(s.auth)
	return recoverable.Connect(s.servers, s.sessionTimeout, append([]recoverable.Option{recoverable.WithLogger(log)}, auth...)...)
}

// opts are the sequence options the settings give.
func (s settings) opts(log *slog.Logger) []sequence.Option {
	_, acl := recoverable.Access(s.auth)
	return []sequence.Option{sequence.WithRoot(s.root), sequence.WithACL(acl), sequence.WithLogger(log)}
}

// args returns the command's arguments, named as in its usage, after
// checking that there are exactly that many and that a NAME is valid.
func args(c *cli.Context, names ...string) ([]string, error) {
	got, err := cmdline.Args(c, names...)
	if err != nil {
		return nil, err
	}
	if len(names) > 0 && names[0] == "NAME" {
		if err := sequence.ValidateName(got[0]); err != nil {
			return nil, cmdline.Usage("NAME %s", cmdline.Reason(err))
		}
	}
	return got, nil
}

// openStore opens --store, as bad input when it cannot be written.
func openStore(c *cli.Context) (*sequence.FileStore, error) {
	dir := c.String("store")
	if dir == "" {
		return nil, cmdline.BadFlag("store", "missing: the directory where reservations are kept, shared by every persistence process")
	}
	st, err := sequence.OpenFileStore(dir)
	if err != nil {
		return nil, cmdline.BadFlag("store", "%s", cmdline.Reason(err))
	}
	return st, nil
}

// int64Flag parses a whole-number flag from lo to hi.
func int64Flag(c *cli.Context, name string, lo, hi int64) (int64, error) {
	var v int64
	if _, err := fmt.Sscan(c.String(name), &v); err != nil || fmt.Sprint(v) != strings.TrimPrefix(c.String(name), "+") || v < lo || v > hi {
		return 0, cmdline.BadFlag(name, "%q: want a whole number from %d to %d", c.String(name), lo, hi)
	}
	return v, nil
}
