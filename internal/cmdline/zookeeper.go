package cmdline

import (
	"log/slog"
	"os"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/urfave/cli/v2"

	"zkspeaker/recoverable"
)

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
