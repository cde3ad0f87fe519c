package cmdline

import (
	"log/slog"
	"strings"

	"github.com/urfave/cli/v2"
)

// AuthFlag is --auth ($ZK_AUTH): a digest identity for the session.
func AuthFlag(what string) cli.Flag {
	return &cli.StringFlag{Name: "auth", EnvVars: []string{"ZK_AUTH"}, Usage: "digest `user:password`; " + what}
}

// ParseAuth checks --auth: user:password, both non-empty, no whitespace.
// The value is never echoed: it holds a password.
func ParseAuth(c *cli.Context) (string, error) {
	auth := c.String("auth")
	if auth == "" {
		return "", nil
	}
	user, password, ok := strings.Cut(auth, ":")
	if !ok || user == "" || password == "" || strings.ContainsFunc(auth, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return "", BadFlag("auth", "must be user:password, both non-empty, without whitespace")
	}
	return auth, nil
}

// LogLevelFlag is --log-level.
func LogLevelFlag() cli.Flag {
	return &cli.StringFlag{Name: "log-level", Value: "info", Usage: "debug, info, warn or error; the log goes to stderr"}
}

// ParseLogLevel checks --log-level.
func ParseLogLevel(c *cli.Context) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(c.String("log-level"))); err != nil {
		return l, BadFlag("log-level", "unknown value %q (want debug, info, warn or error)", c.String("log-level"))
	}
	return l, nil
}
