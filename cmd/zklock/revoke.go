package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/fourletter"
	"zkspeaker/internal/usage"
	"zkspeaker/recipes/lock"
	"zkspeaker/recoverable"
)

// Exit statuses of `zklock revoke`, besides 2 for bad input: 0 when nobody
// holds the lock once it is done (they let go, or nobody held it), 1 when
// a holder still holds at --timeout (it is not --revocable, or its CMD
// takes longer to stop) or ZooKeeper could not be asked.
const revokeHeld = 1

// newRevokeApp is `zklock revoke`: the ZooKeeper website's revocation, from
// the outside. It marks the holders' znodes, says whom it asked, and waits
// for them to let go.
func newRevokeApp() *cli.App {
	usage.Install()
	return &cli.App{
		Name:      "zklock revoke",
		Usage:     "ask the holders of a lock to let go, and wait until they do",
		Version:   usage.Version(),
		UsageText: "zklock revoke [options]",
		CustomAppHelpTemplate: strings.ReplaceAll(cli.AppHelpTemplate, "GLOBAL OPTIONS", "OPTIONS") +
			"\nA holder started with --revocable stops CMD (SIGTERM, SIGKILL after its --grace)\n" +
			"and releases the lock; any other logs the request and carries on. Each holder's\n" +
			"znode carries the request as a second line of its data. Exit status: 0 when\n" +
			"nobody holds the lock at the end (they let go, or nobody held it), 1 when a\n" +
			"holder still holds at --timeout, 2 for bad input.\n",
		Flags: []cli.Flag{
			cmdline.ServersFlag(),
			&cli.StringFlag{Name: "path", Value: "/lock", Usage: "the lock's znode, as its holders' --path"},
			&cli.StringFlag{Name: "timeout", Value: "15s", Usage: "how long to wait, a `duration`, for ZooKeeper and for the holders to let go"},
			&cli.StringFlag{Name: "name", Usage: "who asks, as the holders' logs say it (default: host:pid)"},
			cmdline.SessionTimeoutFlag(),
			cmdline.AuthFlag("needed when the holders' znodes were made with one"),
			cmdline.LogLevelFlagDefault("warn"),
			cli.HelpFlag,
		},
		Action:          runRevoke,
		OnUsageError:    cmdline.OnUsageError,
		HideHelpCommand: true,
		Before:          cmdline.TakenValues,
	}
}

// runRevoke asks, reports whom, and waits for each to let go.
func runRevoke(c *cli.Context) error {
	s, err := parseRevoke(c)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	rz, err := s.session(ctx)
	if err != nil {
		return err
	}
	defer rz.Close()
	asked, err := lock.Revoke(ctx, rz, s.path, lock.RequestedBy(s.name))
	start := time.Now()
	for _, h := range asked {
		again := ""
		if h.Already {
			again = " (asked before, by someone else)"
		}
		fmt.Printf("asked %s to let go of %s%s: %s\n", h.Name, s.path, again, h.Node)
	}
	if err != nil {
		return s.failed(err) // those asked before it were said: they let go all the same
	}
	if len(asked) == 0 {
		fmt.Printf("nobody holds %s\n", s.path)
		return nil
	}
	left := awaitEach(ctx, rz, asked, start)
	if len(left) > 0 {
		return cli.Exit(fmt.Sprintf("zklock revoke: %s still held %s at --timeout %v: not --revocable, or CMD still stopping", strings.Join(left, ", "), s.path, s.timeout), revokeHeld)
	}
	return nil
}

// awaitEach waits for each holder at once, says each one that lets go
// with the time since the request, and returns the names of those that
// still hold when ctx ends.
func awaitEach(ctx context.Context, rz *recoverable.RecoverableZookeeper, asked []lock.Holder, start time.Time) []string {
	type answer struct {
		h    lock.Holder
		gone bool
	}
	answers := make(chan answer, len(asked))
	for _, h := range asked {
		go func() {
			left, err := lock.AwaitRelease(ctx, rz, []lock.Holder{h})
			answers <- answer{h, err == nil && len(left) == 0}
		}()
	}
	var left []string
	for range asked {
		a := <-answers
		if a.gone {
			fmt.Printf("%s let go after %v\n", a.h.Name, time.Since(start).Round(time.Millisecond))
		} else {
			left = append(left, a.h.Name)
		}
	}
	return left
}

// revokeSettings are `zklock revoke`'s flags, checked.
type revokeSettings struct {
	cmdline.ZooKeeper
	path, name string
	timeout    time.Duration
}

// parseRevoke checks every flag before anything talks to ZooKeeper.
func parseRevoke(c *cli.Context) (revokeSettings, error) {
	s := revokeSettings{path: c.String("path"), name: c.String("name")}
	var err error
	if c.NArg() > 0 {
		return s, cmdline.Usage("unexpected argument %q: zklock revoke takes flags only", c.Args().First())
	}
	if s.ZooKeeper, err = cmdline.ParseZooKeeper(c); err != nil {
		return s, err
	}
	if err := recoverable.ValidatePath("path", s.path); err != nil {
		return s, cmdline.BadFlag("path", "%s", cmdline.Reason(err))
	}
	if s.timeout, err = cmdline.PositiveDuration(c, "timeout"); err != nil {
		return s, err
	}
	if c.IsSet("name") && (s.name == "" || strings.ContainsAny(s.name, "\n\r")) {
		return s, cmdline.BadFlag("name", "%q must be non-empty, on one line", s.name)
	}
	if s.name == "" {
		host, _ := os.Hostname()
		s.name = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	return s, nil
}

// session connects, or fails at once when no ZooKeeper answers, as every
// command that does one thing and exits.
func (s revokeSettings) session(ctx context.Context) (*recoverable.RecoverableZookeeper, error) {
	if err := fourletter.CheckReachable(ctx, s.Servers); err != nil {
		return nil, err
	}
	rz, _, err := s.Connect(s.Logger())
	if err != nil {
		return nil, err
	}
	if err := rz.WaitConnected(ctx); err != nil {
		rz.Close()
		return nil, s.failed(err)
	}
	cmdline.WarnGranted(s.Logger(), s.SessionTimeout, rz.SessionTimeout())
	return rz, nil
}

// failed says which flag bounded a wait that ran out, or why ZooKeeper
// refused.
func (s revokeSettings) failed(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("ZooKeeper did not answer within --timeout %v", s.timeout)
	}
	return cmdline.ExplainNoAuth(err)
}
