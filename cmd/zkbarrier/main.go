// Command zkbarrier runs the barriers of ZooKeeper's recipes page, on the
// recipe in zkspeaker/recipes/barrier.
//
//	zkbarrier set /start                   hold every waiter back
//	zkbarrier wait /start                  return once /start is removed
//	zkbarrier remove /start                let every waiter go
//	zkbarrier run --count 3 /step -- CMD   start CMD once 3 are in; leave once all are done
package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/metrics"
	"zkspeaker/internal/usage"
)

func main() { cmdline.Main(newApp()) }

func newApp() *cli.App {
	usage.Install()
	return &cli.App{
		Name:    "zkbarrier",
		Usage:   "barriers in ZooKeeper: hold processes back until a znode goes, or until N of them are in",
		Version: usage.Version(),
		UsageText: "zkbarrier set [options] PATH        set the barrier: waiters wait\n" +
			"zkbarrier wait [options] PATH       wait until it is removed\n" +
			"zkbarrier remove [options] PATH     remove it: every waiter goes on\n" +
			"zkbarrier run [options] --count N PATH -- CMD [ARGS...]\n" +
			"                                    start CMD once N are in; leave when it\n" +
			"                                    ends; exit once all have left",
		CustomAppHelpTemplate: strings.ReplaceAll(cli.AppHelpTemplate, "GLOBAL OPTIONS", "OPTIONS") +
			"\nrun's CMD sees ZKBARRIER_PATH, ZKBARRIER_MEMBER (its member znode) and\n" +
			"ZKBARRIER_ROUND (the same for every member of a round, higher for every\n" +
			"later one). run exits with CMD's status.\n",
		Flags: []cli.Flag{cli.HelpFlag},
		Commands: []*cli.Command{
			command("set", "set the barrier: a persistent znode at PATH", "PATH", "warn", runSet, timeoutFlag()),
			command("wait", "wait until the barrier at PATH is removed (at once if it is not set)", "PATH", "info", runWait),
			command("remove", "remove the barrier at PATH: every waiter goes on", "PATH", "warn", runRemove, timeoutFlag()),
			command("run", "enter the double barrier at PATH, run CMD once N members are in, leave when it ends and wait until all have left; exit with CMD's status", "PATH -- CMD [ARGS...]", "info", runDouble,
				&cli.StringFlag{Name: "count", Usage: "`N`, the members to wait for; every member of PATH must give the same"},
				&cli.StringFlag{Name: "name", Usage: "who is in, as stored in our member znode (default: host:pid)"},
				metrics.Flag()),
			cmdline.HelpCommand("zkbarrier help run", "set, wait, remove, run or help"),
		},
		OnUsageError:    cmdline.OnUsageError,
		HideHelpCommand: true,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowAppHelp(c)
			}
			return cmdline.Usage("no command %q (want set, wait, remove, run or help)", c.Args().First())
		},
	}
}
