// Command zkview serves one live page of what the other commands do in
// ZooKeeper: the election's line of candidates and who watches whom, the
// lock's queue, a group's members, a configuration's keys, the sequences,
// a barrier's members, a queue's items, each server's mode, and the lines landing in the speakers' out file.
// ZooKeeper's watches drive it, and the page gets each change as it
// happens (Server-Sent Events). It only reads: it changes nothing in
// ZooKeeper and controls no process.
//
//	zkview --listen 127.0.0.1:8181
package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/usage"
	"zkspeaker/nodemonitor"
	"zkspeaker/recipes/config"
	"zkspeaker/recipes/sequence"
	"zkspeaker/znodemonitor"
)

func main() { cmdline.Main(newApp()) }

// defaultListen is where the page is served unless --listen says
// otherwise: this machine only, as zkview shows what others may not see.
const defaultListen = "127.0.0.1:8181"

func newApp() *cli.App {
	usage.Install()
	return &cli.App{
		Name:      "zkview",
		Usage:     "a live page of the elections, lock, group, configuration, sequences, barrier and queue in ZooKeeper",
		Version:   usage.Version(),
		UsageText: "zkview [options]",
		CustomAppHelpTemplate: strings.ReplaceAll(cli.AppHelpTemplate, "GLOBAL OPTIONS", "OPTIONS") +
			"\nOpen the address it prints in a browser. A panel shows once its znode exists,\n" +
			"or at once when its flag is given; a flag set to \"\" leaves its panel out.\n" +
			"zkview only reads: it creates nothing.\n",
		Flags: []cli.Flag{
			cmdline.ServersFlag(),
			&cli.StringFlag{Name: "listen", Value: defaultListen, Usage: "`host:port` to serve the page on; port 0 picks a free one"},
			&cli.StringFlag{Name: "election", Value: nodemonitor.DefaultPath, Usage: "the sequential election's `znode` (speaker)"},
			&cli.StringFlag{Name: "single-file", Value: znodemonitor.DefaultPath, Usage: "the single-file election's `znode` (speaker --election single-file)"},
			&cli.StringFlag{Name: "lock", Value: "/lock", Usage: "the lock's `znode` (zklock --path)"},
			&cli.StringFlag{Name: "group", Usage: "a group's `znode` (zkgroup join GROUP); none unless given"},
			&cli.StringFlag{Name: "barrier", Usage: "a barrier's `znode` (zkbarrier run/set PATH); none unless given"},
			&cli.StringFlag{Name: "queue", Usage: "a queue's `znode` (zkqueue put/take PATH); none unless given"},
			&cli.StringFlag{Name: "config", Value: config.DefaultBase, Usage: "the `znode` under which configuration keys live (zkconfig --path)"},
			&cli.StringFlag{Name: "seqid", Value: sequence.DefaultRoot, Usage: "the `znode` under which the sequences live (seqid)"},
			&cli.StringFlag{Name: "seqid-election", Value: sequence.DefaultElection, Usage: "the `znode` under which the sequences' persistence processes stand for election (seqid persist --election)"},
			&cli.StringFlag{Name: "out", Value: "out/out.txt", Usage: "the speakers' out `file`, followed as it grows"},
			cmdline.SessionTimeoutFlag(),
			cmdline.AuthFlag("to read znodes that only this identity may read"),
			cmdline.LogLevelFlag(),
			cli.HelpFlag,
		},
		Action:          run,
		OnUsageError:    cmdline.OnUsageError,
		HideHelpCommand: true,
		Before:          cmdline.TakenValues,
	}
}
