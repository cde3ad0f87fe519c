package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"zkspeaker/cmd/speaker/internal/timeline"
	"zkspeaker/internal/cmdline"
	"zkspeaker/speaker"
)

func timelineCommand() *cli.Command {
	return &cli.Command{
		Name:      "timeline",
		Usage:     "read an out file as a story: each term, the failover gaps, anomalies, and a chart",
		ArgsUsage: "[FILE, default out/out.txt]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "svg", Usage: "also draw the chart as an SVG picture in `FILE`"},
			&cli.IntFlag{Name: "width", Value: 72, Usage: "columns of the text chart, 10 to 1000"},
			&cli.StringFlag{Name: "events", Usage: "mark the events listed in `FILE` (lines of <time> <kind> <target> [note]) on the chart"},
		},
		Action:       runTimeline,
		OnUsageError: onUsageError,
	}
}

func runTimeline(c *cli.Context) error {
	if c.NArg() > 1 && strings.HasPrefix(c.Args().Get(1), "-") {
		return cmdline.Usage("%s: flags go before FILE: speaker timeline %s %s", c.Args().Get(1), strings.Join(c.Args().Tail(), " "), c.Args().First())
	}
	if c.NArg() > 1 {
		return cmdline.Usage("unexpected argument %q (timeline reads one file)", c.Args().Get(1))
	}
	if w := c.Int("width"); w < 10 || w > 1000 {
		return badFlag("width", "must be from 10 to 1000, got %d", w)
	}
	if c.IsSet("svg") && c.String("svg") == "" {
		return badFlag("svg", "must name a file")
	}
	if svg := c.String("svg"); svg != "" {
		// Checked before the report is printed, so that bad input prints
		// one line and nothing else.
		if st, err := os.Stat(filepath.Dir(svg)); err != nil || !st.IsDir() {
			return badFlag("svg", "%s: its folder %s does not exist", svg, filepath.Dir(svg))
		}
	}
	events, err := readEvents(c)
	if err != nil {
		return err
	}
	name := "out/out.txt"
	if c.NArg() == 1 {
		name = c.Args().First()
	}
	f, err := os.Open(name)
	if err != nil {
		return cmdline.Usage("FILE: %v", err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return cmdline.Usage("FILE: %s is a directory, not an out file", name)
	}
	defer f.Close()
	tl, err := speaker.ReadTimeline(f)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	timeline.Write(os.Stdout, name, tl, events, c.Int("width"))
	if svg := c.String("svg"); svg != "" && len(tl.Terms) == 0 {
		fmt.Printf("no chart drawn in %s: %s has no line to draw\n", svg, name)
	} else if svg != "" {
		var b strings.Builder
		timeline.WriteSVG(&b, name, tl, events)
		if err := os.WriteFile(svg, []byte(b.String()), 0o644); err != nil {
			return err
		}
		fmt.Printf("chart drawn in %s\n", svg)
	}
	return nil
}

// readEvents reads the file of --events, if given. Any fault in it is bad
// input, found before anything is printed.
func readEvents(c *cli.Context) ([]timeline.Event, error) {
	if !c.IsSet("events") {
		return nil, nil
	}
	path := c.String("events")
	if path == "" {
		return nil, badFlag("events", "must name a file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, badFlag("events", "%v", err)
	}
	defer f.Close()
	events, err := timeline.ReadEvents(f)
	if err != nil {
		return nil, badFlag("events", "%s: %v", path, err)
	}
	return events, nil
}
