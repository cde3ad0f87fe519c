package usage

import (
	"flag"
	"io"
	"testing"
)

// parseError is the error Go's flag package itself returns for args.
func parseError(t *testing.T, args ...string) error {
	t.Helper()
	fs := flag.NewFlagSet("speaker", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Bool("fsync", true, "")
	fs.Int("width", 72, "")
	fs.String("servers", "", "")
	fs.String("s", "", "")
	err := fs.Parse(args)
	if err == nil {
		t.Fatalf("%q parsed", args)
	}
	return err
}

func TestFlagErrorNamesTheFlagWithTwoDashes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--fsync=maybe"}, `--fsync: "maybe" is neither true nor false`},
		{[]string{"--width", "abc"}, `--width: "abc" is not a whole number`},
		{[]string{"--width", "99999999999999999999"}, `--width: "99999999999999999999" is out of range`},
		{[]string{"--bogus"}, "--bogus: no such flag (see speaker status --help)"},
		{[]string{"-bogus"}, "--bogus: no such flag (see speaker status --help)"},
		{[]string{"-x"}, "-x: no such flag (see speaker status --help)"},
		{[]string{"--servers"}, "--servers: needs a value"},
		{[]string{"-s"}, "-s: needs a value"},
		{[]string{"---x"}, "---x: not a flag (write --name value or --name=value)"},
	} {
		if got := FlagError(parseError(t, tc.args...), "speaker status"); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestTakenFlagIsOnlyAFlagOfTheCommand(t *testing.T) {
	known := []string{"interval", "out", "servers", "s"}
	for value, want := range map[string]string{
		"--out":       "--out",
		"--out=x":     "--out",
		"-s":          "-s",
		"-out":        "--out",
		"--elsewhere": "",
		"-1s":         "",
		"out":         "",
		"":            "",
	} {
		if got := TakenFlag(value, known); got != want {
			t.Errorf("TakenFlag(%q) = %q, want %q", value, got, want)
		}
	}
}
