// Command zklock runs a command only while it holds a ZooKeeper lock, in
// the manner of flock(1) and `consul lock`: it waits its turn, starts the
// command, stops it the moment the lock is lost, releases the lock when the
// command exits, and exits with the command's status.
//
//	zklock --path /leader -- ./backup.sh --full
//
// `zklock revoke --path /leader` asks the holders to let go (revoke.go).
package main

import (
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/metrics"
	"zkspeaker/internal/usage"
)

func main() {
	if grace, ok := os.LookupEnv(watchdogEnv); ok {
		os.Exit(runWatchdog(grace))
	}
	// revoke only as the first word: `zklock -- revoke` runs a CMD of
	// that name, as any CMD after -- is run.
	if len(os.Args) > 1 && os.Args[1] == "revoke" {
		os.Args = append(os.Args[:1], os.Args[2:]...)
		cmdline.Main(newRevokeApp())
		return
	}
	cmdline.Main(newApp())
}

func newApp() *cli.App {
	usage.Install()
	return &cli.App{
		Name:      "zklock",
		Usage:     "run a command only while holding a ZooKeeper lock",
		Version:   usage.Version(),
		UsageText: "zklock [options] -- CMD [ARGS...]\nzklock revoke --path P [--timeout D]",
		CustomAppHelpTemplate: strings.ReplaceAll(cli.AppHelpTemplate, "GLOBAL OPTIONS", "OPTIONS") +
			"\nCMD sees ZKLOCK_EPOCH, the lock's epoch, which grows with every holder, to fence\n" +
			"its writes (0 under --policy at-least-one, which confirms nothing), and\n" +
			"ZKLOCK_PATH. zklock exits with CMD's status, or with 75 when --revocable and\n" +
			"`zklock revoke` asked it to let go (see zklock revoke --help).\n",
		Flags: []cli.Flag{
			cmdline.ServersFlag(),
			&cli.StringFlag{Name: "path", Value: "/lock", Usage: "the lock's znode; contenders queue under it"},
			&cli.BoolFlag{Name: "shared", Usage: "take a read lock (flock -s; here -s is --servers): holders with --shared hold together, and a zklock without it takes the write lock and holds alone"},
			&cli.StringFlag{Name: "leases", Usage: "a semaphore: at most `N` holders at once, each holding as the lock is held; the path records N, and every contender on it must give the same"},
			&cli.BoolFlag{Name: "revocable", Usage: "let go when `zklock revoke` asks: stop CMD as at the end of the lock (SIGTERM, SIGKILL after --grace), release the lock, exit 75; without it, the request is logged and CMD carries on"},
			&cli.StringFlag{Name: "name", Usage: "who waits, as stored in our znode (default: host:pid)"},
			&cli.StringFlag{Name: "session-timeout", Value: "5s", Usage: "session timeout to ask for, a `duration`; a dead holder's lock passes on after it"},
			&cli.StringFlag{Name: "policy", Value: "at-most-one", Usage: "when the connection is lost: at-most-one freezes CMD at once and thaws it once the lock is proved ours again (killed if lost); at-least-one lets it run while the session may live"},
			&cli.StringFlag{Name: "grace", Value: "5s", Usage: "time CMD gets between SIGTERM and SIGKILL, a `duration`; never past the moment the session may expire"},
			cmdline.AuthFlag("the lock's znodes then only this identity may change"),
			metrics.Flag(),
			cmdline.LogLevelFlag(),
			cli.HelpFlag,
		},
		Action:          runLock,
		OnUsageError:    cmdline.OnUsageError,
		HideHelpCommand: true,
		Before:          cmdline.TakenValues,
	}
}
