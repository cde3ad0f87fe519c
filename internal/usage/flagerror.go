// Package usage holds what the speaker command says to people about its
// command line: bad flags in one line, the help text, the version.
package usage

import (
	"fmt"
	"regexp"
	"strings"
)

// Go's flag package, which urfave/cli parses with, writes flag names with
// one dash ("-fsync"), while every message and page of ours writes two.
// Each pattern below is one of its messages; FlagError rewrites them.
var (
	undefined  = regexp.MustCompile(`^flag provided but not defined: -(.+)$`)
	badBool    = regexp.MustCompile(`^invalid boolean value "(.*)" for -([^:]+): .*$`)
	badValue   = regexp.MustCompile(`^invalid value "(.*)" for flag -([^:]+): (.*)$`)
	noArgument = regexp.MustCompile(`^flag needs an argument: -(.+)$`)
	badSyntax  = regexp.MustCompile(`^bad flag syntax: (.*)$`)
)

// FlagError rewrites an error of Go's flag package as one line that names
// the flag as the user writes it, with two dashes (one for a one-letter
// alias such as -s). command is what to run for help, "speaker status" say.
// Other errors come back unchanged.
func FlagError(err error, command string) string {
	msg := err.Error()
	if m := undefined.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s: no such flag (see %s --help)", Dashed(m[1]), command)
	}
	if m := badBool.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s: %q is neither true nor false", Dashed(m[2]), m[1])
	}
	if m := badValue.FindStringSubmatch(msg); m != nil {
		// Only whole-number flags get this far: string flags take any
		// value, and booleans have their own message above.
		why := "is not a whole number"
		if strings.Contains(m[3], "out of range") {
			why = "is out of range"
		}
		return fmt.Sprintf("%s: %q %s", Dashed(m[2]), m[1], why)
	}
	if m := noArgument.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s: needs a value", Dashed(m[1]))
	}
	if m := badSyntax.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s: not a flag (write --name value or --name=value)", m[1])
	}
	return msg
}

// UndefinedFlag returns the name of the flag that err says is not
// defined (urfave/cli passes on the flag package's error), without dashes.
func UndefinedFlag(err error) (string, bool) {
	if m := undefined.FindStringSubmatch(err.Error()); m != nil {
		return strings.TrimLeft(m[1], "-"), true
	}
	return "", false
}

// Dashed writes a flag's name as it is typed: --name, or -s for a
// one-letter alias.
func Dashed(name string) string {
	name = strings.TrimLeft(name, "-")
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// TakenFlag reports whether value, given to a flag, is really the next flag
// on the command line: "--out" in `--interval --out x`, where --interval
// lost its value. known lists the command's flag names and aliases; it
// returns the flag's name, dashed, or "".
func TakenFlag(value string, known []string) string {
	if !strings.HasPrefix(value, "-") {
		return ""
	}
	name, _, _ := strings.Cut(strings.TrimLeft(value, "-"), "=")
	for _, k := range known {
		if k == name {
			return Dashed(name)
		}
	}
	return ""
}
