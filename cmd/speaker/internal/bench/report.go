package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// Report prints the bench's rows for people, as a table, or as one JSON
// object per line for programs.
type Report struct {
	w     io.Writer
	json  bool
	tw    *tabwriter.Writer
	notes []string // said under the table
	// atLeastOne: the note on the speakers' policy is among them.
	atLeastOne bool
}

// NewReport starts a report on w, with the table's header unless asJSON.
func NewReport(w io.Writer, asJSON bool) *Report {
	o := &Report{w: w, json: asJSON}
	if !asJSON {
		o.tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		// Per failover: the path's requests, writes and round trips after
		// the notification, then everyone's notifications, requests and
		// the servers' transactions.
		fmt.Fprintln(o.tw, "ELECTION\tWATCH\tHOW\tN\tROUNDS\tP50 MS\tP99 MS\tMAX MS\tVS ZK.LOCK\tPATH REQ\tPATH WRITES\tRTT AFTER NOTE\tNOTIFIED\tREQUESTS\tWRITES\t")
	}
	return o
}

// Row prints one measured row.
func (o *Report) Row(r Row) {
	if o.json {
		_ = json.NewEncoder(o.w).Encode(r)
		return
	}
	ratio := "-"
	switch {
	case r.Election == LockBaseline().Election:
		ratio = "baseline"
	case r.RatioToBaseline > 0:
		ratio = fmt.Sprintf("%.2fx", r.RatioToBaseline)
	}
	if r.Policy == "at-least-one" && !o.atLeastOne {
		o.atLeastOne = true
		o.notes = append(o.notes, "the speakers' rows ran under --policy at-least-one: no fence, no confirm before a line")
	}
	if r.How == "resign" && r.ExitMsP50 > 0 {
		watch := ""
		if r.Watch != "-" {
			watch = "/" + r.Watch
		}
		o.notes = append(o.notes, fmt.Sprintf("resign vs exit, %s%s at N=%d: p50 %.1f ms vs %.1f ms (%.2fx)",
			r.Election, watch, r.Candidates, r.FailoverMsP50, r.ExitMsP50, r.RatioToExit))
	}
	fmt.Fprintf(o.tw, "%s\t%s\t%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Election, r.Watch, r.How, r.Candidates, r.Rounds,
		r.FailoverMsP50, r.FailoverMsP99, r.FailoverMsMax, ratio, count(r.PathRequests), count(r.PathWrites), count(r.RoundTrips),
		count(r.NotificationsPerFailover), count(r.RequestsPerFailover), count(r.WritesPerFailover))
}

// Flush ends the table of rows.
func (o *Report) Flush() {
	if o.tw != nil {
		_ = o.tw.Flush()
	}
	for _, n := range o.notes {
		fmt.Fprintln(o.w, n)
	}
	o.notes = nil
}

// Processes prints what a speaker process costs, after the rows.
func (o *Report) Processes(ps []ProcessUsage) {
	if o.json {
		for _, p := range ps {
			_ = json.NewEncoder(o.w).Encode(p)
		}
		return
	}
	fmt.Fprintln(o.w)
	tw := tabwriter.NewWriter(o.w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "SPEAKER PROCESS\tINTERVAL\tRSS MB\tCPU %\tOVER\t")
	for _, p := range ps {
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.2f\t%.0fs\t\n", p.Role, p.Interval, p.RSSMB, p.CPUPercent, p.WindowS)
	}
	_ = tw.Flush()
}

// count prints a per-failover count: whole when it is, else to one decimal.
func count(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}
