// Command zkconfig is the configuration service of the ZooKeeper chapter of
// "Hadoop: The Definitive Guide", run from a terminal: `update` writes a
// random value to a key every few seconds (ConfigUpdater, or with
// --resilient ResilientConfigUpdater), `watch` prints every value of a key
// it sees (ConfigWatcher), and `set` and `get` are for hand use. Keys are
// znodes under /config (--path). Values go to stdout, logs to stderr.
package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/usage"
)

func main() { cmdline.Main(newApp()) }

func newApp() *cli.App {
	usage.Install()
	app := &cli.App{
		Name:    "zkconfig",
		Usage:   "a configuration service in ZooKeeper: write a key, watch it change",
		Version: usage.Version(),
		UsageText: "zkconfig update [options] KEY        write a random value every few seconds\n" +
			"zkconfig watch [options] KEY         print every value of KEY it sees\n" +
			"zkconfig set [options] KEY VALUE     write one value\n" +
			"zkconfig get [options] KEY           print the value",
		CustomAppHelpTemplate: strings.ReplaceAll(cli.AppHelpTemplate, "GLOBAL OPTIONS", "OPTIONS"),
		Flags:                 []cli.Flag{cli.HelpFlag}, // urfave adds it only when it adds its own help command
		Commands:              []*cli.Command{updateCommand(), watchCommand(), setCommand(), getCommand(), cmdline.HelpCommand("zkconfig help watch", "update, watch, set, get or help")},
		OnUsageError:          cmdline.OnUsageError,
		HideHelpCommand:       true,
		Before:                cmdline.TakenValues,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowAppHelp(c)
			}
			return cmdline.Usage("no command %q (want update, watch, set, get or help)", c.Args().First())
		},
	}
	for _, c := range app.Commands {
		c.Before = cmdline.TakenValues
		c.OnUsageError = cmdline.OnUsageError
	}
	return app
}
