package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/speaker"
)

func timelineCommand() *cli.Command {
	return &cli.Command{
		Name:      "timeline",
		Usage:     "read an out file as a story: each term, the failover gaps, anomalies, and a chart",
		ArgsUsage: "[FILE, default out/out.txt]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "svg", Usage: "also draw the chart as an SVG picture in `FILE`"},
			&cli.IntFlag{Name: "width", Value: 72, Usage: "columns of the text chart"},
		},
		Action:       runTimeline,
		OnUsageError: onUsageError,
	}
}

func runTimeline(c *cli.Context) error {
	if c.NArg() > 1 && strings.HasPrefix(c.Args().Get(1), "-") {
		return usageError{fmt.Sprintf("%s: flags go before FILE: speaker timeline %s %s", c.Args().Get(1), strings.Join(c.Args().Tail(), " "), c.Args().First())}
	}
	if c.NArg() > 1 {
		return usageError{fmt.Sprintf("unexpected argument %q (timeline reads one file)", c.Args().Get(1))}
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
	name := "out/out.txt"
	if c.NArg() == 1 {
		name = c.Args().First()
	}
	f, err := os.Open(name)
	if err != nil {
		return usageError{fmt.Sprintf("FILE: %v", err)}
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return usageError{fmt.Sprintf("FILE: %s is a directory, not an out file", name)}
	}
	defer f.Close()
	tl, err := speaker.ReadTimeline(f)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	writeTimeline(os.Stdout, name, tl, c.Int("width"))
	if svg := c.String("svg"); svg != "" {
		var b strings.Builder
		writeSVG(&b, tl)
		if err := os.WriteFile(svg, []byte(b.String()), 0o644); err != nil {
			return err
		}
		fmt.Printf("chart drawn in %s\n", svg)
	}
	return nil
}

// writeTimeline prints the terms, the anomalies and the chart.
func writeTimeline(w io.Writer, name string, tl *speaker.Timeline, width int) {
	fmt.Fprintf(w, "%s: %s, %s, %s, %s\n", name, count(tl.Lines(), "line"), count(len(tl.Writers), "writer"),
		count(len(tl.Terms), "term"), count(len(tl.Anomalies), "anomaly"))
	if len(tl.Terms) == 0 {
		writeAnomalies(w, tl) // a file of garbage: say what is wrong with it
		return
	}
	fmt.Fprintf(w, "\nterms (UTC, %s)\n", tl.Terms[0].First.UTC().Format(time.DateOnly))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TERM\tNAME\tFIRST\tLAST\tLINES\tCOUNTERS\tGAP BEFORE\t")
	for i, t := range tl.Terms {
		gap := "-"
		if t.HasGapBefore {
			gap = t.GapBefore.Round(time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d-%d\t%s\t\n", i+1, t.Name, clock(t.First), clock(t.Last), t.Lines, t.FromCounter, t.ToCounter, gap)
	}
	_ = tw.Flush()
	writeAnomalies(w, tl)
	fmt.Fprintln(w)
	writeChart(w, tl, width)
}

// writeAnomalies lists what a correct election never writes.
func writeAnomalies(w io.Writer, tl *speaker.Timeline) {
	if len(tl.Anomalies) == 0 {
		return
	}
	fmt.Fprintln(w, "\nanomalies")
	for _, a := range tl.Anomalies {
		where := ""
		if a.Line > 0 {
			where = fmt.Sprintf("line %d: ", a.Line)
		}
		fmt.Fprintf(w, "  %s%s: %s\n", where, a.Kind, a.Detail)
	}
}

// count says "1 line" or "3 lines"; anomaly becomes anomalies.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func clock(t time.Time) string { return t.UTC().Format("15:04:05.000") }
