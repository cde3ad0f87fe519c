package main

import (
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// commonFlags are the flags of every command that talks to ZooKeeper,
// after the command's name: `seqid next -s host:2181 orders`.
func commonFlags(logLevel string) []cli.Flag {
	return []cli.Flag{
		cmdline.ServersFlag(),
		&cli.StringFlag{Name: "root", Value: sequence.DefaultRoot, Usage: "the znode under which sequences live, `/znode/path`"},
		cmdline.SessionTimeoutFlag(),
		cmdline.LogLevelFlagDefault(logLevel),
		cmdline.AuthFlag("the znodes seqid creates then only this identity may change, so every client must give it"),
	}
}

// settings are the common flags after every one was checked.
type settings struct {
	cmdline.ZooKeeper
	root string
}

// parseSettings checks the common flags, before anything is sent.
func parseSettings(c *cli.Context) (settings, error) {
	z, err := cmdline.ParseZooKeeper(c)
	if err != nil {
		return settings{}, err
	}
	s := settings{ZooKeeper: z, root: c.String("root")}
	if err := recoverable.ValidatePath("root", s.root); err != nil {
		return s, cmdline.BadFlag("root", "%s", cmdline.Reason(err))
	}
	return s, nil
}

// connect starts a client and waits, within the session timeout and a
// few seconds more, until it is connected.
func (s settings) connect(log *slog.Logger) (*recoverable.RecoverableZookeeper, error) {
	rz, _, err := s.Connect(log)
	return rz, err
}

// opts are the sequence options the settings give; --auth's ACL comes with
// the session (connect).
func (s settings) opts() []sequence.Option {
	return []sequence.Option{sequence.WithRoot(s.root)}
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
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, cmdline.BadFlag("store", "%q is not a directory", dir)
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
