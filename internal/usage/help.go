package usage

import (
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// Width is the most columns a line of help may take: a terminal's width.
const Width = 80

// Install makes urfave/cli print help within Width columns, each flag on a
// line of its own with its meaning below it (see FlagString), and the
// version as Version says it. urfave keeps these printers in package
// variables, so this holds for the whole program.
func Install() {
	cli.FlagStringer = FlagString
	cli.HelpPrinter = func(w io.Writer, templ string, data any) {
		cli.HelpPrinterCustom(w, templ, data, map[string]any{"wrapAt": func() int { return Width }})
	}
	cli.VersionPrinter = func(c *cli.Context) {
		_, _ = io.WriteString(c.App.Writer, c.App.Name+" "+c.App.Version+"\n")
	}
}

// FlagString shows one flag in the help: its names and value on one line,
// then what it means, its default and its environment variable, which the
// help template wraps below it. Side by side, as urfave puts them, one long
// name (--servers host:port[,host:port...]) pushed every meaning past 150
// columns.
func FlagString(f cli.Flag) string {
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return strings.Join(f.Names(), ", ")
	}
	placeholder, text := placeholderOf(df.GetUsage())
	var names []string
	for _, n := range df.Names() {
		names = append(names, Dashed(n))
	}
	sort.SliceStable(names, func(i, j int) bool { return len(names[i]) < len(names[j]) }) // -s before --servers
	head := strings.Join(names, ", ")
	if df.TakesValue() {
		if placeholder == "" {
			placeholder = "value"
		}
		head += " " + placeholder
	}
	var notes []string
	if d := defaultOf(f, df); d != "" {
		notes = append(notes, "default: "+d)
	}
	for _, env := range df.GetEnvVars() {
		notes = append(notes, "or $"+env)
	}
	if len(notes) > 0 {
		text += " (" + strings.Join(notes, "; ") + ")"
	}
	return head + "\n" + text
}

// placeholderOf splits a usage in urfave's manner: a word in backquotes
// names the flag's value, "digest `user:password`", and stays in the text
// without its quotes.
func placeholderOf(usage string) (placeholder, text string) {
	before, rest, ok := strings.Cut(usage, "`")
	if !ok {
		return "", usage
	}
	name, after, ok := strings.Cut(rest, "`")
	if !ok {
		return "", usage
	}
	return name, before + name + after
}

// defaultOf is the default worth showing: none for a switch that is off
// unless given, and a string's without its quotes.
func defaultOf(f cli.Flag, df cli.DocGenerationFlag) string {
	d := df.GetDefaultText()
	if b, ok := f.(*cli.BoolFlag); ok && (b.DisableDefaultText || d == "false") {
		return ""
	}
	if s, err := strconv.Unquote(d); err == nil {
		return s
	}
	return d
}
