package cmdline

import (
	"fmt"
	"os"
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
			// Words after the command are its arguments, as in
			// `zkgroup join --help zoo duck`: its help all the same.
			if c.App.Command(c.Args().First()) == nil {
				return Usage("help: no command %q (want %s)", c.Args().First(), names)
			}
			return cli.ShowCommandHelp(c.Lineage()[1], c.Args().First()) // looked up among the app's commands
		},
	}
}

// HelpDespiteArguments is an App's CommandNotFound: urfave takes the first
// argument after a command's --help for a help topic, so that `zkgroup
// create --help zoo` said "No help topic for 'zoo'" with status 3. The
// arguments are the command's own: its help is shown, with status 0, as
// without them. At the top (`zkgroup --help zoo`) there is no command to
// show, and the word is bad input: one line, status 2; unless the program
// has no commands, whose help it is then.
func HelpDespiteArguments(c *cli.Context, topic string) {
	if cmd := c.App.Command(c.Command.Name); cmd != nil {
		// As urfave prints it, less the help subcommand it added to the
		// command on the way here: our commands have none of their own.
		shown := *cmd
		shown.Subcommands = nil
		template := shown.CustomHelpTemplate
		if template == "" {
			template = cli.CommandHelpTemplate
		}
		cli.HelpPrinter(c.App.Writer, template, &shown)
		return
	}
	var names []string
	for _, cmd := range c.App.VisibleCommands() {
		names = append(names, cmd.Name)
	}
	if len(names) == 0 { // `zklock --help CMD`: the words are CMD
		_ = cli.ShowAppHelp(c)
		return
	}
	fmt.Fprintf(os.Stderr, "%s: no command %q (want %s)\n", c.App.Name, topic, strings.Join(names, ", "))
	os.Exit(2)
}
