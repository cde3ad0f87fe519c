// Command zkgroup is the group membership example of the ZooKeeper chapter
// of "Hadoop: The Definitive Guide" in one program: its CreateGroup,
// JoinGroup, ListGroup and DeleteGroup become `zkgroup create`, `join`,
// `list` and `delete`, on the recipe in zkspeaker/recipes/group.
//
//	zkgroup create zoo          a persistent znode /zoo
//	zkgroup join zoo duck       an ephemeral /zoo/duck, until the process ends
//	zkgroup list zoo            the members, one a line (--watch: as they change)
//	zkgroup delete zoo          the members and the group, in one multi
package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"
	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/metrics"
	"zkspeaker/internal/usage"
	"zkspeaker/recipes/group"
)

func main() { cmdline.Main(newApp()) }

func newApp() *cli.App {
	usage.Install()
	app := &cli.App{
		Name:    "zkgroup",
		Usage:   "group membership in ZooKeeper: create a group, join it, list it, delete it",
		Version: usage.Version(),
		UsageText: "zkgroup create [options] GROUP          make the group's znode\n" +
			"zkgroup join [options] GROUP MEMBER     be a member until this process ends\n" +
			"zkgroup list [options] GROUP            print its members; --watch follows\n" +
			"zkgroup delete [options] GROUP          delete it and its members in one go\n" +
			"GROUP is a znode path whose leading / may be left out: zoo is /zoo",
		CustomAppHelpTemplate: strings.ReplaceAll(cli.AppHelpTemplate, "GLOBAL OPTIONS", "OPTIONS"),
		Flags:                 []cli.Flag{cli.HelpFlag}, // urfave adds it only when it adds its own help command
		Commands: []*cli.Command{
			command("create", "make a group: a persistent znode (the chapter's CreateGroup)", "GROUP", "warn", runCreate),
			command("join", "join a group as MEMBER until Ctrl-C, SIGTERM or SIGHUP (JoinGroup)", "GROUP MEMBER", "info", runJoin, metrics.Flag()),
			command("list", "print a group's members, one a line, sorted (ListGroup)", "GROUP", "warn", runList,
				&cli.BoolFlag{Name: "watch", Usage: "keep running and print each member who joins (+) or leaves (-)"}),
			command("delete", "delete a group and its members in one atomic multi (DeleteGroup)", "GROUP", "warn", runDelete),
			cmdline.HelpCommand("zkgroup help join", "create, join, list, delete or help"),
		},
		OnUsageError:    onUsageError,
		HideHelpCommand: true,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowAppHelp(c)
			}
			return cmdline.Usage("no command %q (want create, join, list, delete or help)", c.Args().First())
		},
	}
	return app
}

// explain turns the recipe's errors into the one line a person reads.
func explain(cfg config, err error) error {
	switch {
	case err == nil:
		return nil
	case is(err, group.ErrNoGroup):
		return fmt.Errorf("no group %s", cfg.name)
	case is(err, group.ErrExists):
		return fmt.Errorf("group %s already exists", cfg.name)
	case is(err, group.ErrBusy):
		return fmt.Errorf("members of %s kept joining or leaving; deleted nothing, try again", cfg.name)
	case is(err, group.ErrMemberTaken):
		return errors.New(cmdline.Reason(err))
	case is(err, group.ErrNoParent):
		return errors.New(cmdline.Reason(err))
	case is(err, group.ErrNotMember):
		return errors.New(cmdline.Reason(err))
	case is(err, zk.ErrNoAuth):
		return fmt.Errorf("not allowed by the ACL of %s: %w (give --auth user:password of its creator)", cfg.name, err)
	}
	return err
}
