package main

import (
	"github.com/urfave/cli/v2"

	"zkspeaker/cmd/zkview/internal/live"
	"zkspeaker/internal/cmdline"
	"zkspeaker/recoverable"
)

// settings are zkview's flags, checked.
type settings struct {
	cmdline.ZooKeeper
	listen  string
	sources live.Sources
}

// parse checks every flag before anything starts: bad input is one line
// naming the flag, and nothing is served or opened.
func parse(c *cli.Context) (settings, error) {
	var s settings
	if c.Args().Len() > 0 {
		return s, cmdline.Usage("takes no arguments, got %q (%s)", c.Args().First(), c.App.UsageText)
	}
	var err error
	if s.ZooKeeper, err = cmdline.ParseZooKeeper(c); err != nil {
		return s, err
	}
	if s.listen, err = cmdline.ParseListen("listen", c.String("listen"), "127.0.0.1:8181"); err != nil {
		return s, err
	}
	panel := func(flag string) (live.Panel, error) {
		p := live.Panel{Path: c.String(flag), Named: c.IsSet(flag)}
		if p.Path == "" { // --election "" leaves the panel out
			return live.Panel{}, nil
		}
		if err := recoverable.ValidatePath(flag, p.Path); err != nil {
			return p, cmdline.BadFlag(flag, "%q is not a znode path below / (such as /election)", p.Path)
		}
		return p, nil
	}
	src := &s.sources
	for _, f := range []struct {
		flag string
		p    *live.Panel
	}{{"election", &src.Election}, {"single-file", &src.Single}, {"lock", &src.Lock}, {"group", &src.Group}, {"config", &src.Config}, {"seqid", &src.Sequences},
		{"barrier", &src.Barrier}, {"queue", &src.Queue}} {
		if *f.p, err = panel(f.flag); err != nil {
			return s, err
		}
	}
	persist, err := panel("seqid-election")
	if err != nil {
		return s, err
	}
	src.Servers, src.Persistence, src.Out = s.Servers, persist.Path, c.String("out")
	return s, nil
}
