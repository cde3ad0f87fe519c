package cmdline

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// HelpCommand is `APP help [COMMAND]`, the same as --help, for the
// commands that hide urfave's own (which would list itself and accept
// anything): example shows one use ("seqid help next"), and names lists
// the commands for the error about an unknown one.
func HelpCommand(example, names string) *cli.Command {
	return &cli.Command{
		Name: "help", Usage: "show this help, or a command's: " + example, ArgsUsage: "[COMMAND]",
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowAppHelp(c)
			}
			if c.NArg() > 1 || c.App.Command(c.Args().First()) == nil {
				return Usage("help: no command %q (want %s)", strings.Join(c.Args().Slice(), " "), names)
			}
			return cli.ShowCommandHelp(c.Lineage()[1], c.Args().First()) // looked up among the app's commands
		},
	}
}
