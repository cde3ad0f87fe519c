package cmdline

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/urfave/cli/v2"

	"zkspeaker/recoverable"
)

// The ZooKeeper flags, every one a command that talks to ZooKeeper takes:
// --servers, --session-timeout, --auth and --log-level, their checks, and
// what their values make (ParseZooKeeper, Connect). A command lists the
// flags it shows and parses them with ParseZooKeeper in its settings.go.

// flagEnv names the environment variable a flag may come from, so that an
// error can point at it: an exported ZK_SERVERS is easy to forget.
var flagEnv = map[string]string{"servers": "ZK_SERVERS", "auth": "ZK_AUTH"}

// ZooKeeper are the settings of every command that talks to ZooKeeper,
// checked: --servers, --session-timeout, --auth and --log-level.
type ZooKeeper struct {
	Servers        []string
	SessionTimeout time.Duration
	Auth           string // user:password, or "" for open znodes
	LogLevel       slog.Level
}

// SessionTimeoutFlag is --session-timeout, 5 s unless told otherwise.
func SessionTimeoutFlag() cli.Flag {
	return &cli.StringFlag{Name: "session-timeout", Value: "5s", Usage: "session timeout to ask for, a `duration`; the server grants 2 to 20 ticks"}
}

// LogLevelFlagDefault is --log-level with the command's own default: info
// for a command that runs on and tells how it fares, warn for one whose
// output a script may read.
func LogLevelFlagDefault(level string) cli.Flag {
	return &cli.StringFlag{Name: "log-level", Value: level, Usage: "debug, info, warn or error; the log goes to stderr"}
}

// ParseZooKeeper checks the ZooKeeper flags, before anything is sent: bad
// input is one line naming the flag, and nothing is created.
func ParseZooKeeper(c *cli.Context) (ZooKeeper, error) {
	var z ZooKeeper
	var err error
	if z.Servers, err = ParseServers(c.String("servers")); err != nil {
		return z, err
	}
	if z.SessionTimeout, err = PositiveDuration(c, "session-timeout"); err != nil {
		return z, err
	}
	if z.Auth, err = ParseAuth(c); err != nil {
		return z, err
	}
	if z.LogLevel, err = ParseLogLevel(c); err != nil {
		return z, err
	}
	return z, nil
}

// Logger writes the log to stderr at the chosen level.
func (z ZooKeeper) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: z.LogLevel}))
}

// Connect starts a client on the servers, logging to log, with the
// credentials --auth gives and opts; acl is what the znodes it makes must
// carry (open to all without --auth).
func (z ZooKeeper) Connect(log *slog.Logger, opts ...recoverable.Option) (rz *recoverable.RecoverableZookeeper, acl []zk.ACL, err error) {
	auth, acl := recoverable.Access(z.Auth)
	all := append(append([]recoverable.Option{recoverable.WithLogger(log)}, auth...), opts...)
	rz, err = recoverable.Connect(z.Servers, z.SessionTimeout, all...)
	return rz, acl, err
}

// ServersFlag is --servers (-s, $ZK_SERVERS).
func ServersFlag() cli.Flag {
	return &cli.StringFlag{Name: "servers", Aliases: []string{"s"}, Value: "127.0.0.1:2181", EnvVars: []string{"ZK_SERVERS"}, Usage: "ZooKeeper servers to connect to, `host:port[,host:port...]`"}
}

// ParseServers checks a connection string: host:port entries, commas
// between.
func ParseServers(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, BadFlag("servers", "must not be empty (e.g. 127.0.0.1:2181)")
	}
	var out []string
	for _, entry := range strings.Split(s, ",") {
		host, port, err := net.SplitHostPort(strings.TrimSpace(entry))
		if err != nil || host == "" {
			return nil, BadFlag("servers", "%q is not host:port", entry)
		}
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return nil, BadFlag("servers", "%q: port must be a number from 1 to 65535", entry)
		}
		out = append(out, net.JoinHostPort(host, port))
	}
	return out, nil
}

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
