package cmdline

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/usage"
)

// Args returns a command's arguments after checking that there are
// exactly as many as names (as its usage names them: KEY, NAME). urfave/cli
// stops reading flags at the first argument, so a flag written after one
// arrives here as an argument: it is named as a flag, with where it goes.
func Args(c *cli.Context, names ...string) ([]string, error) {
	app, cmd := c.App.Name, c.Command.Name
	got := c.Args().Slice()
	before := "the arguments"
	if len(names) > 0 {
		before = names[0]
	}
	known := flagNames(c)
	for _, a := range got {
		if flag := usage.TakenFlag(a, known); flag != "" {
			return nil, Usage("%s: flags go before %s (see %s %s --help)", flag, before, app, cmd)
		}
	}
	if len(got) < len(names) {
		return nil, Usage("%s: missing %s (usage: %s %s [options] %s)", cmd, names[len(got)], app, cmd, strings.Join(names, " "))
	}
	if len(got) > len(names) {
		extra, after, hint := got[len(names)], "", ""
		if len(names) > 0 {
			after = " after " + strings.Join(names, " ")
		}
		if strings.HasPrefix(extra, "-") {
			hint = fmt.Sprintf(" (it is no flag of %s %s, and flags go before %s)", app, cmd, before)
		}
		return nil, Usage("%s: unexpected argument %q%s%s", cmd, extra, after, hint)
	}
	return got, nil
}

// flagNames lists every name of the command's flags, aliases too.
func flagNames(c *cli.Context) []string {
	var known []string
	for _, f := range c.Command.Flags {
		known = append(known, f.Names()...)
	}
	return known
}
