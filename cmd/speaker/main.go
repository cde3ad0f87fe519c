// Command speaker runs one candidate of the Speaker demo: it joins a leader
// election in ZooKeeper and, while it leads, appends "<time> <name>
// <counter>" lines to out/out.txt. Start several, kill the one that speaks,
// and watch another take over.
package main

import (
	"strconv"
	"strings"
	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/metrics"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/usage"
	"zkspeaker/recoverable"
)

func main() { cmdline.Main(newApp()) }

func newApp() *cli.App {
	usage.Install()
	retry := recoverable.DefaultRetryCounterFactory()
	app := &cli.App{
		Name:    "speaker",
		Usage:   "speak in out/out.txt while elected leader through ZooKeeper",
		Version: usage.Version(),
		UsageText: "speaker [options]            run one candidate of the election\n" +
			"speaker COMMAND [options]    status, timeline, bench, chaos or help (see COMMANDS)",
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
			metrics.Flag(),
			&cli.BoolFlag{Name: "fence", Value: true, Usage: "refuse to write when out.txt already holds a newer leader's epoch (at-most-one only; --fence=false to turn off)"},
			cmdline.AuthFlag("election znodes then only this identity may change"),
			cmdline.LogLevelFlag(),
			cli.HelpFlag, // urfave adds it only when it adds its own help command
		},
		Action:          runSpeaker,
		Commands:        []*cli.Command{statusCommand(), timelineCommand(), benchCommand(), chaosCommand(), chaosWorkCommand(), cmdline.HelpCommand("speaker help status", "status, timeline, bench, chaos or help")},
		OnUsageError:    onUsageError,
		HideHelpCommand: true,
		Before:          takenValues,
	}
	for _, c := range app.Commands {
		c.Before = takenValues
	}
	return app
}

// The flags that say where the election is, shared by every subcommand.
func serversFlag() cli.Flag { return cmdline.ServersFlag() }

func electionFlag() cli.Flag {
	return &cli.StringFlag{Name: "election", Value: "sequential", Usage: "election recipe: sequential or single-file"}
}

func pathFlag() cli.Flag {
	return &cli.StringFlag{Name: "path", Usage: "election znode (default /election for sequential, /speaker for single-file)"}
}

func onUsageError(c *cli.Context, err error, isSub bool) error {
	return cmdline.OnUsageError(c, err, isSub)
}

func takenValues(c *cli.Context) error { return cmdline.TakenValues(c) }
