package program

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"zkspeaker/cmd/speaker/internal/chaos"
)

// Python is the interpreter of the kazoo peer: Debian's, which
// python3-kazoo installs the library for (make test-tools).
const Python = "/usr/bin/python3"

// Peer is a program that `make peers` soaks beside this project's
// speaker: its name in the table, a short one for its files, and its
// --cmd template.
type Peer struct {
	Name, Short, Cmd string
}

// Peers are this project's speaker and the two peers of docs/peers, each
// written the plain way its library's documentation shows: speaker is
// the speaker binary, zklock the peer built from docs/peers/zklock, and
// root the repository, where docs/peers/kazoo/speaker.py is. Each writes
// every 200 ms, so that a fault aimed at the last line's writer finds
// the leader.
func Peers(speaker, zklock, root string) []Peer {
	kazoo := filepath.Join(root, "docs", "peers", "kazoo", "speaker.py")
	const peer = " --zk {servers} --name {name} --out {out} --path {path} --session {session}"
	return []Peer{
		{"speaker (this project)", "speaker", fmt.Sprintf("'%s' --servers {servers} --name {name} --out {out} --path {path} --session-timeout {session} --interval 200ms", speaker)},
		{"zk.Lock (go-zookeeper)", "zklock", fmt.Sprintf("'%s'", zklock) + peer},
		{"Election (kazoo)", "kazoo", fmt.Sprintf("%s '%s'", Python, kazoo) + peer},
	}
}

// Row is one soak of the table: the program and its report.
type Row struct {
	Name   string
	Report chaos.Report
}

// WriteTable prints one line per soak: the faults it was dealt, its
// overlaps (explained by a window its policy declares, or not), its
// stalls and torn lines, and its verdict with what failed.
func WriteTable(w io.Writer, rows []Row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "program\tfaults\toverlaps explained\tunexplained\tstalls\ttorn lines\tlines\tresult")
	for _, r := range rows {
		rep := r.Report
		faults, unexplained := 0, 0
		for _, k := range rep.Kinds {
			faults += k.N
		}
		for _, o := range rep.Overlaps {
			if !o.Explained() {
				unexplained++
			}
		}
		result := "PASS"
		if f := rep.Failures(); len(f) > 0 {
			result = fmt.Sprintf("FAIL (%s)", strings.Join(f, ", "))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", r.Name, faults, len(rep.Overlaps)-unexplained, unexplained,
			len(rep.Stalls), len(rep.TornLines), rep.Lines, result)
	}
	tw.Flush()
}
