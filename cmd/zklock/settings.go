package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/metrics"
	"zkspeaker/nodemonitor"
	"zkspeaker/recipes/lock"
	"zkspeaker/recoverable"
)

// settings are zklock's flags, checked.
type settings struct {
	cmdline.ZooKeeper
	path   string
	name   string
	policy nodemonitor.Policy
	shared bool // --shared: a read lock
	leases int  // --leases: a semaphore's, 0 for a lock
	// revocable: --revocable, let go when asked (lock.Revocable).
	revocable bool
	grace     time.Duration
	argv      []string
	metrics   string // --metrics, "" when off
}

// parse checks every flag and CMD before anything talks to ZooKeeper: bad
// input is one line naming the flag, and nothing is created.
func parse(c *cli.Context) (settings, error) {
	s := settings{path: c.String("path"), name: c.String("name"), shared: c.Bool("shared"), revocable: c.Bool("revocable"), argv: c.Args().Slice()}
	var err error
	if len(s.argv) == 0 {
		return s, cmdline.Usage("no command to run: zklock [options] -- CMD [ARGS...]")
	}
	if s.ZooKeeper, err = cmdline.ParseZooKeeper(c); err != nil {
		return s, err
	}
	if s.metrics, err = metrics.Parse(c); err != nil {
		return s, err
	}
	if err := recoverable.ValidatePath("path", s.path); err != nil {
		return s, cmdline.BadFlag("path", "%s", cmdline.Reason(err))
	}
	if s.grace, err = cmdline.Duration(c, "grace"); err != nil || s.grace < 0 {
		return s, cmdline.BadFlag("grace", "%q must be a duration, 0 or more", c.String("grace"))
	}
	if s.policy, err = nodemonitor.ParsePolicy(c.String("policy")); err != nil {
		return s, cmdline.BadFlag("policy", "unknown value %q (want at-most-one or at-least-one)", c.String("policy"))
	}
	if c.IsSet("leases") {
		if s.leases, err = strconv.Atoi(c.String("leases")); err != nil || s.leases < 1 {
			return s, cmdline.BadFlag("leases", "%q must be a whole number, 1 or more", c.String("leases"))
		}
		if s.shared {
			return s, cmdline.BadFlag("leases", "goes with no --shared: a lease is neither a read nor a write lock")
		}
	}
	if c.IsSet("name") {
		// zkCli.sh and zkview show the name as one line; and a name that
		// starts with - is most likely --name's value forgotten, as in
		// --name -- CMD, which would otherwise run CMD under the name "--".
		switch {
		case strings.HasPrefix(s.name, "-"):
			return s, cmdline.BadFlag("name", "%q looks like a flag, not a name: give --name a value", s.name)
		case s.name == "" || strings.ContainsFunc(s.name, unicode.IsControl):
			return s, cmdline.BadFlag("name", "%q must be non-empty, without control characters", s.name)
		}
	}
	if s.name == "" {
		host, _ := os.Hostname()
		s.name = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	if _, err := exec.LookPath(s.argv[0]); err != nil {
		if s.argv[0] == "revoke" {
			// zklock -s HOST revoke …: revoke is a subcommand only as
			// the first word, so that flags before it mean a CMD.
			return s, cmdline.Usage("CMD: %v: to ask the holders to let go, revoke goes first: zklock revoke --path P", err)
		}
		return s, cmdline.Usage("CMD: %v", err)
	}
	return s, nil
}

// mode names the lock zklock takes, as its log lines say it: "lease" with
// --leases, "read" with --shared, "write" without.
func (s settings) mode() string {
	switch {
	case s.leases > 0:
		return "lease"
	case s.shared:
		return "read"
	}
	return "write"
}

// lockOptions are the lock's options that the flags choose. Without
// --revocable a request is still watched for, and logged (Irrevocable).
func (s settings) lockOptions() []lock.Option {
	opts := []lock.Option{lock.WithPolicy(s.policy), lock.Irrevocable()}
	if s.revocable {
		opts[1] = lock.Revocable()
	}
	switch {
	case s.leases > 0:
		opts = append(opts, lock.Leases(s.leases))
	case s.shared:
		opts = append(opts, lock.Shared())
	}
	return opts
}
