package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
)

// Record is what the config soak adds to the checker's input
// (Input.Record).
type Record struct {
	// Values are the values each watcher printed, by watcher.
	Values map[string][]watched
	// Acked is, by key, the highest value whose set exited 0.
	Acked map[string]int64
	// Unsure is, by key, the values whose set did not say it succeeded:
	// killed, timed out or refused. Such a write may still land, later
	// than the next one (a request held in a black hole, delivered on the
	// heal while its session lives), so a key or a watcher may go back to
	// it: the documented price of the chapter's unconditional write, not a
	// fault of the service.
	Unsure map[string]map[int64]bool
	// Final is, by key, what a synced read found once the updaters had
	// stopped and the bound had passed.
	Final map[string]int64
	// Tried is, by key, how many sets its updater started: acknowledged
	// or not, for the report's count.
	Tried map[string]int
}

// checkConfig holds the config soak to its rules: a watcher's values
// never go back within one run of it; no acknowledged write is lost (the
// final value is at least the highest acknowledged); and each watcher's
// last value is the final one.
func checkConfig(in *Record) (back, lost, late, stale []chaos.Finding) {
	for name, vs := range in.Values {
		for i := 1; i < len(vs); i++ {
			if vs[i].Life != vs[i-1].Life || vs[i].Value >= vs[i-1].Value {
				continue
			}
			f := chaos.Finding{Time: vs[i].At, Detail: fmt.Sprintf("%s saw %s go back from %d to %d", name, keyOf(name), vs[i-1].Value, vs[i].Value)}
			if in.Unsure[keyOf(name)][vs[i].Value] {
				f.Detail += ", a write whose set did not say it succeeded, landing late"
				late = append(late, f)
				continue
			}
			back = append(back, f)
		}
	}
	for key, acked := range in.Acked {
		final, ok := in.Final[key]
		switch {
		case ok && final >= acked:
		case ok && in.Unsure[key][final]:
			late = append(late, chaos.Finding{Detail: fmt.Sprintf("%s holds %d after %d was acknowledged: %d's set did not say it succeeded, and its write landed late", key, final, acked, final)})
		default:
			lost = append(lost, chaos.Finding{Detail: fmt.Sprintf("%s holds %d (read: %v) after %d was acknowledged", key, final, ok, acked)})
		}
	}
	for name, vs := range in.Values {
		final, ok := in.Final[keyOf(name)]
		if ok && (len(vs) == 0 || vs[len(vs)-1].Value != final) {
			last := "nothing"
			if len(vs) > 0 {
				last = strconv.FormatInt(vs[len(vs)-1].Value, 10)
			}
			stale = append(stale, chaos.Finding{Detail: fmt.Sprintf("%s's last value of %s is %s; the key holds %d", name, keyOf(name), last, final)})
		}
	}
	sortFindings(back)
	sortFindings(lost)
	sortFindings(late)
	sortFindings(stale)
	return back, lost, late, stale
}

// sortFindings orders findings by time, then by detail: map order is not
// the report's.
func sortFindings(fs []chaos.Finding) {
	slices.SortFunc(fs, func(a, b chaos.Finding) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Detail, b.Detail)
	})
}

// sections are the config checker's findings, in the summary's order.
func sections(in chaos.Input, _ []chaos.Line) []chaos.Section {
	rec, _ := in.Record.(*Record)
	if rec == nil {
		rec = &Record{}
	}
	back, lost, late, stale := checkConfig(rec)
	return []chaos.Section{{What: "values that went back", Mark: "value went back", Found: back}, {What: "lost writes", Found: lost},
		{What: "explained: unsure writes that landed late", Found: late, Explained: true}, {What: "stale watchers", Found: stale}}
}

// measure is what the fault table measures: from a fault on a key to its
// watcher's next value.
func measure(in chaos.Input, lines []chaos.Line) func(chaos.Fault) chaos.Outcome {
	byWatcher := map[string][]time.Time{}
	for _, l := range lines {
		byWatcher[l.Name] = append(byWatcher[l.Name], l.Time)
	}
	for _, ts := range byWatcher {
		slices.SortFunc(ts, time.Time.Compare)
	}
	return func(f chaos.Fault) chaos.Outcome {
		key := keyHit(f)
		if key == "" {
			return chaos.Outcome{}
		}
		t, ok := chaos.LineAfter(byWatcher["v"+key[1:]], f.Start, in.End)
		return chaos.Outcome{On: true, Left: true, Came: ok, Took: t.Sub(f.Start)}
	}
}

// summary says what the watchers saw and the updaters wrote.
func summary(in chaos.Input, r chaos.Report) string {
	tried, acked := 0, 0
	if rec, _ := in.Record.(*Record); rec != nil {
		for key, n := range rec.Tried {
			tried += n
			acked += n - len(rec.Unsure[key])
		}
	}
	return fmt.Sprintf("values seen by the watchers %d (%s), writes tried %d, acknowledged %d", r.Lines, strings.Join(r.Writers, ", "), tried, acked)
}
