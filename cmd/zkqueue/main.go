// Command zkqueue is the distributed queue of ZooKeeper's recipes page,
// on the recipe in zkspeaker/recipes/queue.
//
//	zkqueue put /jobs "resize 17"          put an item; exits 0 once it is in
//	zkqueue put --priority 9 /jobs "urgent" taken before lower priorities
//	zkqueue take /jobs                      print one item, waiting while empty
//	zkqueue take --follow /jobs             take items until stopped
//	zkqueue list /jobs                      the items, in the order of takes
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
		Name:    "zkqueue",
		Usage:   "a distributed queue in ZooKeeper: put items, take them in order, list them",
		Version: usage.Version(),
		UsageText: "zkqueue put [options] P VALUE   put VALUE in the queue at znode P\n" +
			"zkqueue take [options] P        print the first item, waiting while there is none\n" +
			"zkqueue list [options] P        print the items, in the order they will be taken",
		CustomAppHelpTemplate: strings.ReplaceAll(cli.AppHelpTemplate, "GLOBAL OPTIONS", "OPTIONS"),
		Flags:                 []cli.Flag{cli.HelpFlag},
		Commands: []*cli.Command{
			command("put", "put VALUE in the queue; exits 0 only once the item is in", "P VALUE", "warn", runPut,
				&cli.IntFlag{Name: "priority", Value: 0, Usage: "0 to 999: higher priorities are taken first, equal ones in the order of their puts"}),
			command("take", "take the first item and print its value, waiting while the queue is empty", "P", "warn", runTake,
				&cli.BoolFlag{Name: "follow", Usage: "take items, one value a line, until Ctrl-C, SIGTERM or SIGHUP"},
				&cli.StringFlag{Name: "delivery", Value: "at-most-once", Usage: "at-most-once: the item is deleted as it is taken; at-least-once: it is claimed, and deleted once printed (and --work done), so that it comes back if this process dies first"},
				&cli.StringFlag{Name: "work", Value: "0s", Usage: "after printing an item, wait this `duration` before taking the next, as if working on it; under at-least-once the item is acknowledged only then"},
				metrics.Flag()),
			command("list", "print the items, one a line, in the order they will be taken", "P", "warn", runList),
			cmdline.HelpCommand("zkqueue help take", "put, take, list or help"),
		},
		OnUsageError:    onUsageError,
		HideHelpCommand: true,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowAppHelp(c)
			}
			return cmdline.Usage("no command %q (want put, take, list or help)", c.Args().First())
		},
	}
}
