// Command seqid is the sequence-ID service of the article "Using Zookeeper
// to Implement a Redundant Persistence Service": workers take unique IDs
// by compare-and-set (`next`), redundant persistence processes elect a
// leader that stores each sequence's reservation before raising its limit
// (`persist`), and `restore` puts the sequences back after ZooKeeper lost
// everything, above every ID ever handed out.
package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/usage"
)

func main() { cmdline.Main(newApp()) }

const commandNames = "create, delete, list, next, persist, restore, bench or help"

func newApp() *cli.App {
	usage.Install()
	app := &cli.App{
		Name:    "seqid",
		Usage:   "unique sequence IDs from ZooKeeper, that stay unique even after ZooKeeper loses everything",
		Version: usage.Version(),
		UsageText: "seqid create [options] NAME     make a sequence\n" +
			"seqid next [options] NAME       print new IDs\n" +
			"seqid persist --store DIR       run a persistence process\n" +
			"seqid list [options]            show every sequence\n" +
			"seqid restore --store DIR       after a total loss of ZooKeeper\n" +
			"seqid delete [options] NAME     remove a sequence\n" +
			"seqid bench [options]           measure IDs per second",
		CustomAppHelpTemplate: strings.ReplaceAll(cli.AppHelpTemplate, "GLOBAL OPTIONS", "OPTIONS"),
		Flags:                 []cli.Flag{cli.HelpFlag},
		Commands: []*cli.Command{createCommand(), nextCommand(), persistCommand(), listCommand(), restoreCommand(),
			deleteCommand(), benchCommand(), cmdline.HelpCommand("seqid help next", commandNames)},
		OnUsageError:    cmdline.OnUsageError,
		HideHelpCommand: true,
		Before:          cmdline.TakenValues,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowAppHelp(c)
			}
			return cmdline.Usage("no command %q (want %s)", c.Args().First(), commandNames)
		},
	}
	for _, c := range app.Commands {
		c.Before = cmdline.TakenValues
		c.OnUsageError = cmdline.OnUsageError
	}
	return app
}
