package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/fourletter"
	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// onceTimeout bounds create, delete, list and restore.
const onceTimeout = 20 * time.Second

// defaultMode is the mode of the sequences create makes when --mode is not
// given.
const defaultMode = sequence.ModeCounter

func createCommand() *cli.Command {
	return &cli.Command{
		Name: "create", Usage: "make the sequence NAME; no ID is handed out until a persistence process has stored a reservation",
		ArgsUsage: "NAME",
		Flags: append(commonFlags("warn"), &cli.StringFlag{Name: "start", Value: "1", Usage: "the first ID, a whole number, 0 or more"},
			&cli.StringFlag{Name: "mode", Value: string(defaultMode), Usage: "how workers take IDs: cas (the article's compare-and-set: one chain of writes, whoever sends them) or counter (a counter znode's versions: workers never conflict)"}),
		Action: func(c *cli.Context) error {
			a, err := args(c, "NAME")
			if err != nil {
				return err
			}
			start, err := int64Flag(c, "start", 0, sequence.MaxStart)
			if err != nil {
				return err
			}
			mode, err := sequence.ParseMode(c.String("mode"))
			if err != nil {
				return cmdline.BadFlag("mode", "%s", cmdline.Reason(err))
			}
			return once(c, func(ctx context.Context, rz *recoverable.RecoverableZookeeper, s settings) error {
				err := sequence.Create(ctx, rz, a[0], start, append(s.opts(), sequence.WithMode(mode))...)
				if errors.Is(err, sequence.ErrExists) {
					return fmt.Errorf("%s/%s exists already; its IDs go on from where they are (seqid list)", s.root, a[0])
				}
				if err != nil {
					return err
				}
				fmt.Printf("created %s/%s (%s): first ID %d\n", s.root, a[0], mode, start)
				return nil
			})
		},
	}
}

func deleteCommand() *cli.Command {
	return &cli.Command{
		Name: "delete", Usage: "remove the sequence NAME (its reservation stays in the store: restore would bring it back)",
		ArgsUsage: "NAME", Flags: commonFlags("warn"),
		Action: func(c *cli.Context) error {
			a, err := args(c, "NAME")
			if err != nil {
				return err
			}
			return once(c, func(ctx context.Context, rz *recoverable.RecoverableZookeeper, s settings) error {
				if err := sequence.Delete(ctx, rz, a[0], s.opts()...); err != nil {
					return err
				}
				fmt.Printf("deleted %s/%s\n", s.root, a[0])
				return nil
			})
		},
	}
}

func listCommand() *cli.Command {
	return &cli.Command{
		Name: "list", Usage: "print every sequence: its next ID, its limit and, with --store, its stored reservation",
		Flags: append(commonFlags("warn"), &cli.StringFlag{Name: "store", Usage: "the persistence processes' `directory`, to show each reservation"}),
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			var store *sequence.FileStore
			if c.IsSet("store") {
				var err error
				if store, err = existingStore(c); err != nil {
					return err
				}
			}
			return once(c, func(ctx context.Context, rz *recoverable.RecoverableZookeeper, s settings) error {
				infos, err := sequence.List(ctx, rz, s.opts()...)
				if err != nil {
					return err
				}
				reserved := map[string]sequence.Reservation{}
				if store != nil {
					if reserved, err = store.All(ctx); err != nil {
						return err
					}
				}
				if len(infos) == 0 {
					fmt.Printf("no sequences under %s (seqid create NAME makes one)\n", s.root)
					return nil
				}
				tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tMODE\tNEXT\tLIMIT\tRESERVED")
				for _, in := range infos {
					r := "-"
					if v, ok := reserved[in.Name]; ok {
						r = fmt.Sprint(v.Value)
					}
					fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", in.Name, in.Mode, in.Next, in.Limit, r)
				}
				return tw.Flush()
			})
		},
	}
}

func restoreCommand() *cli.Command {
	return &cli.Command{
		Name: "restore", Usage: "after ZooKeeper lost its data: put every sequence of the store back at its reservation, above every ID handed out; never lower one",
		Flags: append(commonFlags("warn"), &cli.StringFlag{Name: "store", Usage: "the persistence processes' `directory`"}),
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			store, err := existingStore(c)
			if err != nil {
				return err
			}
			return once(c, func(ctx context.Context, rz *recoverable.RecoverableZookeeper, s settings) error {
				done, err := sequence.Restore(ctx, rz, store, s.opts()...)
				for _, r := range done {
					switch {
					case r.Before == nil:
						fmt.Printf("%s: %s at %d\n", r.Name, r.Action, r.Reserved)
					case r.Action == sequence.Raised:
						// Safe, as IDs only go up; but on a service that lost
						// nothing it is a cost, so say it.
						fmt.Printf("%s: %s (it was at next %d, limit %d; reservation %d): IDs %d to %d will never be handed out\n",
							r.Name, r.Action, r.Before.Next, r.Before.Limit, r.Reserved, r.Before.Next, r.Reserved-1)
					default:
						fmt.Printf("%s: %s (it was at next %d, limit %d; reservation %d)\n", r.Name, r.Action, r.Before.Next, r.Before.Limit, r.Reserved)
					}
				}
				if err == nil && len(done) == 0 {
					fmt.Printf("no reservations in %s: nothing to restore\n", store.Dir())
				}
				return err
			})
		},
	}
}

// existingStore opens --store, which must exist: list and restore read it.
func existingStore(c *cli.Context) (*sequence.FileStore, error) {
	if dir := c.String("store"); dir != "" {
		if _, err := os.Stat(dir); err != nil {
			return nil, cmdline.BadFlag("store", "%q is not a directory", dir)
		}
	}
	return openStore(c)
}

// once connects, runs f within onceTimeout (plus extra), and closes.
// Ctrl-C ends it early.
func once(c *cli.Context, f func(ctx context.Context, rz *recoverable.RecoverableZookeeper, s settings) error, extra ...time.Duration) error {
	s, err := parseSettings(c)
	if err != nil {
		return err
	}
	timeout := onceTimeout
	for _, d := range extra {
		timeout += d
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	log := s.Logger()
	// Logged once Ctrl-C and SIGTERM are ours to handle: `speaker chaos`
	// waits for it before it may signal a worker.
	log.Info("connecting to ZooKeeper", "servers", strings.Join(s.Servers, ","))
	// Before any client exists: go-zookeeper would only retry, silently,
	// until the timeout.
	if err := fourletter.CheckReachable(ctx, s.Servers); err != nil {
		return err
	}
	rz, err := s.connect(log)
	if err != nil {
		return err
	}
	defer rz.Close()
	if err := rz.WaitConnected(ctx); err != nil {
		return fmt.Errorf("no ZooKeeper server at %v answered: %w", s.Servers, err)
	}
	cmdline.WarnGranted(log, s.SessionTimeout, rz.SessionTimeout())
	err = f(ctx, rz, s)
	if errors.Is(err, sequence.ErrInvalid) {
		return cmdline.Usage("%s", cmdline.Reason(err))
	}
	if errors.Is(err, sequence.ErrNotFound) {
		return cmdline.Usage("NAME %s: no such sequence under %s (seqid list shows them)", cmdline.Reason(err), s.root)
	}
	if errors.Is(err, sequence.ErrNoRoom) {
		return fmt.Errorf("no room below the limit: %s", cmdline.Reason(err))
	}
	return cmdline.ExplainNoAuth(err)
}
