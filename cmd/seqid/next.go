package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// maxPrinted is the most IDs `next --count` prints: a million lines.
const maxPrinted = 1000000

// nextCommand is a worker: it takes IDs, by compare-and-set or from the
// counter, as the sequence was made, and prints them.
func nextCommand() *cli.Command {
	return &cli.Command{
		Name: "next", Usage: "print COUNT new IDs of NAME, one per line, taken in one write",
		ArgsUsage: "NAME",
		Flags: append(commonFlags("warn"),
			&cli.StringFlag{Name: "count", Value: "1", Usage: "how many IDs, 1 or more"},
			&cli.StringFlag{Name: "wait", Value: sequence.DefaultWait.String(), Usage: "how long to wait for the persistence leader to raise the limit, a `duration`"}),
		Action: func(c *cli.Context) error {
			a, err := args(c, "NAME")
			if err != nil {
				return err
			}
			count, err := int64Flag(c, "count", 1, maxPrinted)
			if err != nil {
				return err
			}
			wait, err := cmdline.PositiveDuration(c, "wait")
			if err != nil {
				return err
			}
			return once(c, func(ctx context.Context, rz *recoverable.RecoverableZookeeper, s settings) error {
				seq, err := sequence.Open(rz, a[0], append(s.opts(), sequence.WithWait(wait))...)
				if err != nil {
					return err
				}
				first, err := seq.NextN(ctx, count)
				if err != nil {
					return err
				}
				logTaken(s.Logger(), a[0], first, count, seq.Stats())
				for id := first; id < first+count; id++ {
					fmt.Println(id)
				}
				return nil
			}, wait)
		},
	}
}

// logTaken says, at info, how the worker got its IDs: at its first
// compare-and-set, or after other workers' writes beat it to the version it
// read (a race that the IDs alone do not show: they are unique either way).
func logTaken(log *slog.Logger, name string, first, count int64, st sequence.Stats) {
	if st.Mode == sequence.ModeCounter {
		// No race to lose: a write is refused only when the limit was
		// raised since it was read.
		log.Info("took the IDs from the counter", "sequence", name, "first", first, "count", count, "refused", st.Conflicts, "burnt", st.Burnt)
		return
	}
	msg := "took the IDs at our first compare-and-set"
	if st.Conflicts > 0 {
		msg = "took the IDs after another worker's write beat our compare-and-set"
	}
	log.Info(msg, "sequence", name, "first", first, "count", count, "lost", st.Conflicts)
}
