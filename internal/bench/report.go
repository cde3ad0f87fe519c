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
	w    io.Writer
	json bool
	tw   *tabwriter.Writer
}

// NewReport starts a report on w, with the table's header unless asJSON.
func NewReport(w io.Writer, asJSON bool) *Report {
	o := &Report{w: w, json: asJSON}
	if !asJSON {
		o.tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(o.tw, "ELECTION\tWATCH\tCANDIDATES\tROUNDS\tP50 MS\tP99 MS\tMAX MS\tNOTIFICATIONS/FAILOVER\tREQUESTS/FAILOVER\t")
	}
	return o
}

// Row prints one measured row.
func (o *Report) Row(r Row) {
	if o.json {
		_ = json.NewEncoder(o.w).Encode(r)
		return
	}
	fmt.Fprintf(o.tw, "%s\t%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t\n", r.Election, r.Watch, r.Candidates, r.Rounds,
		r.FailoverMsP50, r.FailoverMsP99, r.FailoverMsMax, r.NotificationsPerFailover, r.RequestsPerFailover)
}

// Flush ends the table of rows.
func (o *Report) Flush() {
	if o.tw != nil {
		_ = o.tw.Flush()
	}
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
