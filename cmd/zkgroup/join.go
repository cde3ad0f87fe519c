package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/metrics"
	"zkspeaker/recipes/group"
	"zkspeaker/recoverable"
)

// leaveTimeout bounds the leaving on a signal: the delete, then the close
// of the session. With ZooKeeper out of reach the process must still exit;
// the server then removes the member when the session expires.
const leaveTimeout = 2 * time.Second

// runJoin is the chapter's JoinGroup: a member until the process ends. The
// chapter's program sleeps forever and leaves the group only when its
// session expires, seconds after it was killed; this one leaves at once on
// Ctrl-C, SIGTERM and SIGHUP (a closed terminal), by deleting its znode and
// then closing its session.
func runJoin(c *cli.Context) error {
	cfg, err := parseConfig(c, "GROUP", "MEMBER")
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ms, err := metrics.Listen(cfg.metrics, cfg.log) // first: a port in use starts nothing
	if err != nil {
		return err
	}
	defer ms.Close()
	rz, g, err := session(ctx, cfg, true)
	if err != nil {
		return quiet(ctx, explain(cfg, err))
	}
	m, err := g.Join(ctx, cfg.member)
	if err != nil {
		rz.Close()
		return quiet(ctx, explain(cfg, err))
	}
	registerMember(ctx, ms, rz, m)
	defer ms.Serve(ctx)()
	fmt.Println("joined", m.Path())
	cfg.log.Info("joined the group", "member", m.Path(), "session", fmt.Sprintf("0x%x", m.Status().Session), "timeout", rz.SessionTimeout())

	select {
	case <-ctx.Done():
	case <-m.Done():
		rz.Close()
		if errors.Is(m.Err(), group.ErrNoGroup) {
			return fmt.Errorf("group %s was deleted; %s is no longer a member", cfg.name, cfg.member)
		}
		return explain(cfg, m.Err())
	}
	return leave(cfg, m, rz)
}

// leave deletes the member's znode, then closes the session, within
// leaveTimeout.
func leave(cfg config, m *group.Member, rz *recoverable.RecoverableZookeeper) error {
	ctx, cancel := context.WithTimeout(context.Background(), leaveTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		err := m.Leave(ctx)
		rz.Close()
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("could not leave %s at once (ZooKeeper removes %s when the session expires): %w", cfg.name, cfg.member, err)
		}
		cfg.log.Info("left the group and closed the session", "member", m.Path())
		return nil
	case <-time.After(leaveTimeout + 500*time.Millisecond):
		return fmt.Errorf("ZooKeeper did not answer in time; %s stays in %s until the session expires", cfg.member, cfg.name)
	}
}

// quiet drops err after a signal: the user asked us to stop, and "context
// canceled" tells them nothing.
func quiet(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}
