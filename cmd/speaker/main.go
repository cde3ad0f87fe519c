// Command speaker runs one candidate of the Speaker demo: it joins a leader
// election in ZooKeeper and, while it leads, appends "<time> <name>
// <counter>" lines to out/out.txt. Start several, kill the one that speaks,
// and watch another take over.
package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/usage"
	"zkspeaker/recoverable"
)

func main() {
	err := newApp().Run(os.Args)
	var usage usageError
	switch {
	case err == nil:
	case errors.As(err, &usage):
		fmt.Fprintln(os.Stderr, "speaker: "+usage.msg)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "speaker: "+err.Error())
		os.Exit(1)
	}
}

func newApp() *cli.App {
	usage.Install()
	retry := recoverable.DefaultRetryCounterFactory()
	app := &cli.App{
		Name:    "speaker",
		Usage:   "speak in out/out.txt while elected leader through ZooKeeper",
		Version: usage.Version(),
		UsageText: "speaker [options]            run one candidate of the election\n" +
			"speaker COMMAND [options]    status, timeline, bench or help (see COMMANDS)",
		CustomAppHelpTemplate: strings.ReplaceAll(cli.AppHelpTemplate, "GLOBAL OPTIONS", "OPTIONS"),
		Flags: []cli.Flag{
			serversFlag(), electionFlag(), pathFlag(),
			&cli.StringFlag{Name: "interval", Value: "1s", Usage: "time between lines, a `duration` above 0 (500ms, 2s)"},
			&cli.StringFlag{Name: "out", Value: "out/out.txt", Usage: "`file` to append lines to; its folder is created"},
			&cli.StringFlag{Name: "name", Usage: "name on each line and znode, no spaces (default: the process id)"},
			&cli.StringFlag{Name: "session-timeout", Value: "5s", Usage: "session timeout to ask for, a `duration`; the server grants 2 to 20 ticks"},
			&cli.StringFlag{Name: "watch", Value: "predecessor", Usage: "sequential only: what followers watch, predecessor or children (the herd)"},
			&cli.StringFlag{Name: "policy", Value: "at-most-one", Usage: "a paused leader's policy: at-most-one or at-least-one"},
			&cli.StringFlag{Name: "retries", Value: strconv.Itoa(retry.MaxRetries), Usage: "retries of an operation after a connection loss, 0 or more"},
			&cli.StringFlag{Name: "retry-interval", Value: retry.Interval.String(), Usage: "base of the exponential backoff between retries, a `duration` above 0"},
			&cli.StringFlag{Name: "retry-max-sleep", Value: retry.MaxSleep.String(), Usage: "cap on one backoff sleep, a `duration`; 0 for none"},
			&cli.BoolFlag{Name: "fsync", Value: true, Usage: "fsync after each line (--fsync=false to turn off)"},
			&cli.BoolFlag{Name: "fence", Value: true, Usage: "refuse to write when out.txt already holds a newer leader's epoch (at-most-one only; --fence=false to turn off)"},
			&cli.StringFlag{Name: "auth", EnvVars: []string{"ZK_AUTH"}, Usage: "digest `user:password`; election znodes then only this identity may change"},
			&cli.StringFlag{Name: "log-level", Value: "info", Usage: "debug, info, warn or error; the log goes to stderr"},
			cli.HelpFlag, // urfave adds it only when it adds its own help command
		},
		Action:          runSpeaker,
		Commands:        []*cli.Command{statusCommand(), timelineCommand(), benchCommand(), chaosCommand(), helpCommand()},
		OnUsageError:    onUsageError,
		HideHelpCommand: true,
		Before:          takenValues,
	}
	for _, c := range app.Commands {
		c.Before = takenValues
	}
	return app
}

// helpCommand is `speaker help [COMMAND]`: the same as --help.
func helpCommand() *cli.Command {
	return &cli.Command{
		Name: "help", Usage: "show this help, or a command's: speaker help status", ArgsUsage: "[COMMAND]",
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowAppHelp(c)
			}
			if c.NArg() > 1 || c.App.Command(c.Args().First()) == nil {
				return usageError{fmt.Sprintf("help: no command %q (want status, timeline, bench or help)", strings.Join(c.Args().Slice(), " "))}
			}
			return cli.ShowCommandHelp(c.Lineage()[1], c.Args().First()) // looked up among speaker's commands
		},
	}
}

// The flags that say where the election is, shared by every subcommand.
func serversFlag() cli.Flag {
	return &cli.StringFlag{Name: "servers", Aliases: []string{"s"}, Value: "127.0.0.1:2181", EnvVars: []string{"ZK_SERVERS"}, Usage: "ZooKeeper servers to connect to, `host:port[,host:port...]`"}
}

func electionFlag() cli.Flag {
	return &cli.StringFlag{Name: "election", Value: "sequential", Usage: "election recipe: sequential or single-file"}
}

func pathFlag() cli.Flag {
	return &cli.StringFlag{Name: "path", Usage: "election znode (default /election for sequential, /speaker for single-file)"}
}

// onUsageError turns urfave's complaints (an unknown flag, a flag without
// its value) into one line and exit status 2.
func onUsageError(c *cli.Context, err error, _ bool) error {
	return usageError{usage.FlagError(err, c.Command.HelpName)}
}

// takenValues catches a flag whose value is missing, so that the next flag
// became its value: `--interval --out x` sets --interval to "--out".
func takenValues(c *cli.Context) error {
	var known []string
	for _, f := range c.Command.Flags {
		known = append(known, f.Names()...)
	}
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if _, ok := f.(*cli.StringFlag); !ok || !c.IsSet(name) {
			continue
		}
		if next := usage.TakenFlag(c.String(name), known); next != "" {
			return badFlag(name, "needs a value: it took the flag %s as its value", next)
		}
	}
	return nil
}
