package main_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
)

// foundAtStart starts another zkview on the election as it runs, and reads
// its event log (its /board, as a script would): each candidate it finds
// in line joined when its znode was made, before this zkview started, and
// in the order they joined; the leader is told as found.
func foundAtStart(t *testing.T, servers, out string, names []string) {
	t.Helper()
	started := time.Now()
	url, _ := serve(t, "--servers", servers, "--out", out)
	var log []struct {
		At   float64 `json:"at"`
		Text string  `json:"text"`
	}
	joined := func() []float64 {
		var at []float64
		for _, n := range names {
			for _, e := range log {
				if e.Text == n+" joined the sequential election /election" {
					at = append(at, e.At)
				}
			}
		}
		return at
	}
	electiontest.Eventually(t, 5*time.Second, "the new zkview's log telling of every candidate", func() bool {
		resp, err := http.Get(url + "board")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var b struct {
			Log *[]struct {
				At   float64 `json:"at"`
				Text string  `json:"text"`
			} `json:"log"`
		}
		b.Log = &log
		return json.NewDecoder(resp.Body).Decode(&b) == nil && len(joined()) == len(names)
	})
	var texts []string
	for _, e := range log {
		texts = append(texts, e.Text)
	}
	at := joined()
	if !slices.IsSorted(at) || at[len(at)-1] >= float64(started.UnixMilli()) {
		t.Errorf("a zkview started at %d ms tells the joins at %v ms: want each before its start, in the order they joined:\n%s",
			started.UnixMilli(), at, strings.Join(texts, "\n"))
	}
	if !slices.ContainsFunc(texts, func(s string) bool { return strings.HasPrefix(s, names[0]+" leads (epoch ") }) {
		t.Errorf("the new zkview's log does not tell that %s leads:\n%s", names[0], strings.Join(texts, "\n"))
	}
}
