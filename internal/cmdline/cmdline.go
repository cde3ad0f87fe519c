// Package cmdline is what every zkspeaker command shares at its command
// line: the ZooKeeper flags and their checks (all in zookeeper.go), bad
// input said in one line with exit status 2, and the exit statuses
// themselves. Every command speaks to people the same way, and keeps its
// own settings, parsed with these, in its settings.go.
package cmdline

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/reason"
	"zkspeaker/internal/usage"
)

// UsageError is bad input: the command prints it on one line and exits 2,
// having created and written nothing.
type UsageError struct{ Msg string }

// Error returns the one line to print.
func (e UsageError) Error() string { return e.Msg }

// Usage is a UsageError with a formatted message.
func Usage(format string, args ...any) error { return UsageError{fmt.Sprintf(format, args...)} }

// BadFlag is bad input in one flag, named as the user may have typed it.
func BadFlag(flag, format string, args ...any) error {
	name := "--" + flag
	if env, ok := flagEnv[flag]; ok {
		if _, set := os.LookupEnv(env); set {
			name += " (or $" + env + ")"
		}
	}
	return UsageError{name + ": " + fmt.Sprintf(format, args...)}
}

// Main runs app and exits as every command does: 2 with one line for bad
// input, 1 with one line for any other error, 0 otherwise.
func Main(app *cli.App) {
	if app.CommandNotFound == nil {
		app.CommandNotFound = HelpDespiteArguments
	}
	err := app.Run(os.Args)
	var bad UsageError
	var exit cli.ExitCoder
	switch {
	case err == nil:
	case errors.As(err, &bad):
		fmt.Fprintln(os.Stderr, app.Name+": "+bad.Msg)
		os.Exit(2)
	case errors.As(err, &exit):
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, app.Name+": "+msg)
		}
		os.Exit(exit.ExitCode())
	default:
		fmt.Fprintln(os.Stderr, app.Name+": "+err.Error())
		os.Exit(1)
	}
}

// Reason is what err says of its argument, for a line that names the
// argument itself (a flag, NAME): see reason.Of.
func Reason(err error) string { return reason.Of(err) }

// OnUsageError turns urfave's complaints (an unknown flag, a flag without
// its value) into one line and exit status 2. A flag given before the
// command that takes it (`zkgroup -s HOST list zoo`) is told where it goes.
func OnUsageError(c *cli.Context, err error, isSubcommand bool) error {
	if name, ok := usage.UndefinedFlag(err); ok && !isSubcommand {
		if cmd := commandWithFlag(c.App, name); cmd != "" {
			return UsageError{fmt.Sprintf("%s: put it after the command (%s %s %s …)", usage.Dashed(name), c.App.Name, cmd, usage.Dashed(name))}
		}
	}
	return UsageError{usage.FlagError(err, c.Command.HelpName)}
}

// commandWithFlag names the command that takes the flag called name: the
// one on the command line if it does, or else the first of app's that
// does; "" if none.
func commandWithFlag(app *cli.App, name string) string {
	takes := func(cmd *cli.Command) bool {
		return slices.ContainsFunc(cmd.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), name) })
	}
	for _, arg := range os.Args[1:] {
		if cmd := app.Command(arg); cmd != nil && takes(cmd) {
			return cmd.Name
		}
	}
	for _, cmd := range app.Commands {
		if takes(cmd) {
			return cmd.Name
		}
	}
	return ""
}

// TakenValues catches a flag whose value is missing, so that the next flag
// became its value: `--interval --out x` sets --interval to "--out". Set
// it as the Before of every command.
func TakenValues(c *cli.Context) error {
	known := flagNames(c)
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if _, ok := f.(*cli.StringFlag); !ok || !c.IsSet(name) {
			continue
		}
		if next := usage.TakenFlag(c.String(name), known); next != "" {
			return BadFlag(name, "needs a value: it took the flag %s as its value", next)
		}
	}
	return nil
}

// Duration reads a duration flag.
func Duration(c *cli.Context, flag string) (time.Duration, error) {
	d, err := time.ParseDuration(c.String(flag))
	if err != nil {
		return 0, BadFlag(flag, "%q is not a duration (e.g. 500ms, 2s)", c.String(flag))
	}
	return d, nil
}

// PositiveDuration reads a duration flag that must be above 0.
func PositiveDuration(c *cli.Context, flag string) (time.Duration, error) {
	d, err := Duration(c, flag)
	if err == nil && d <= 0 {
		err = BadFlag(flag, "must be positive, got %s", c.String(flag))
	}
	return d, err
}
