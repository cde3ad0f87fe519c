package cmdline

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/go-zookeeper/zk"
	"github.com/urfave/cli/v2"
)

// AuthFlag is --auth ($ZK_AUTH): a digest identity for the session.
func AuthFlag(what string) cli.Flag {
	return &cli.StringFlag{Name: "auth", EnvVars: []string{"ZK_AUTH"}, Usage: "digest `user:password`; " + what}
}

// ParseAuth checks --auth: user:password, both non-empty, no whitespace.
// The value is never echoed: it holds a password. An empty --auth on the
// command line is refused: it is most likely a script's unset variable, and
// taking it for "no identity" would make open znodes without a word. An
// empty $ZK_AUTH means unset, as usual for the environment.
func ParseAuth(c *cli.Context) (string, error) {
	auth := c.String("auth")
	if auth == "" {
		if _, fromEnv := os.LookupEnv("ZK_AUTH"); c.IsSet("auth") && !fromEnv {
			return "", BadFlag("auth", "is empty: give user:password, or leave the flag out")
		}
		return "", nil
	}
	user, password, ok := strings.Cut(auth, ":")
	if !ok || user == "" || password == "" || strings.ContainsFunc(auth, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return "", BadFlag("auth", "must be user:password, both non-empty, without whitespace")
	}
	return auth, nil
}

// LogLevelFlag is --log-level.
func LogLevelFlag() cli.Flag { return LogLevelFlagDefault("info") }

// ParseLogLevel checks --log-level.
func ParseLogLevel(c *cli.Context) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(c.String("log-level"))); err != nil {
		return l, BadFlag("log-level", "unknown value %q (want debug, info, warn or error)", c.String("log-level"))
	}
	return l, nil
}

// ExplainNoAuth says what to do when ZooKeeper refused us by an ACL: the
// znodes were made with --auth, and only that identity may use them. Any
// other error passes through as it is.
func ExplainNoAuth(err error) error {
	if errors.Is(err, zk.ErrNoAuth) {
		// The whole of err is that one refusal: say it without the
		// operation's plumbing ("multi : zk: not authenticated").
		return fmt.Errorf("not allowed by the znodes' ACL: they were made with --auth, so give the same user:password (%w)", zk.ErrNoAuth)
	}
	return err
}
