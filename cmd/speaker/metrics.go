package main

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"zkspeaker/internal/election"
	"zkspeaker/internal/metrics"
	"zkspeaker/recoverable"
	"zkspeaker/speaker"
)

// registerSpeaker registers speaker's metrics (--metrics): the election's
// (speaker_leader, speaker_leadership_changes_total{reason},
// speaker_paused_seconds_total), the session's, and the Speaker's own:
// its epoch and its lines, written and refused by the fence.
func registerSpeaker(ctx context.Context, ms *metrics.Server, rz *recoverable.RecoverableZookeeper, mon monitor, spk *speaker.Speaker) {
	if ms == nil {
		return // no observer of the election without metrics: nothing on the failover's path
	}
	ms.Leadership("speaker", "leader", mon.Observe(ctx))
	ms.Session("speaker").Follow(ctx, rz)
	ms.Registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "speaker_epoch",
			Help: "The leader epoch (the czxid of its znode) on this speaker's last line; 0 before its first."},
			func() float64 { return float64(spk.Stats().Epoch) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "speaker_lines_written_total",
			Help: "Lines this speaker wrote to the out file."},
			func() float64 { return float64(spk.Stats().Written) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "speaker_lines_refused_total",
			Help: "Lines the fence refused: a newer leader's epoch was already in the out file."},
			func() float64 { return float64(spk.Stats().Refused) }),
	)
}

// confirmSeconds is how long each confirm took, the round trip that proves
// leadership before a line.
var confirmSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "speaker_confirm_seconds",
	Help:    "Time to confirm leadership before a line (a sync and an exists, one round trip).",
	Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .2, .5, 1}})

// timedSpeaker is the Speaker, its confirms timed for the histogram; the
// Speaker's other methods (Prepare, Acted, ProcessName) come with it.
type timedSpeaker struct{ *speaker.Speaker }

// StartSpeaking hands the Speaker a confirm that is timed.
func (t timedSpeaker) StartSpeaking(confirm func(context.Context) (int64, time.Time, error)) {
	if confirm == nil {
		t.Speaker.StartSpeaking(nil)
		return
	}
	t.Speaker.StartSpeaking(func(ctx context.Context) (int64, time.Time, error) {
		start := time.Now()
		epoch, sent, err := confirm(ctx)
		if err == nil {
			confirmSeconds.Observe(time.Since(start).Seconds())
		}
		return epoch, sent, err
	})
}

// listenerFor is what the monitor tells when to speak: the Speaker itself,
// or, with --metrics, the Speaker with its confirms timed.
func listenerFor(ms *metrics.Server, spk *speaker.Speaker) election.Listener {
	if ms == nil {
		return spk
	}
	ms.Registry.MustRegister(confirmSeconds)
	return timedSpeaker{spk}
}
