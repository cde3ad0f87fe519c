package speaker_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"zkspeaker/speaker"
)

// Two speakers share one file. The election (played here by hand) lets
// "ann" speak, then hands over to "bob"; the file shows who spoke, and each
// one's counter.
func Example() {
	dir, err := os.MkdirTemp("", "speaker-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "out.txt")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	speak := func(name string) *speaker.Speaker {
		s, err := speaker.New(out, speaker.WithName(name), speaker.WithInterval(time.Hour))
		if err != nil {
			panic(err)
		}
		s.StartSpeaking(nil) // elected: the first line is written at once
		if err := s.Wait(ctx, 1); err != nil {
			panic(err)
		}
		s.StopSpeaking() // lost the lead: silent from here on
		return s
	}
	ann := speak("ann")
	bob := speak("bob") // the successor speaks
	for _, s := range []*speaker.Speaker{ann, bob} {
		if err := s.Close(); err != nil {
			fmt.Println(err)
		}
	}

	f, err := os.Open(out)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	tl, err := speaker.ReadTimeline(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, term := range tl.Terms {
		fmt.Println(term.Name, "wrote lines", term.FromCounter, "to", term.ToCounter)
	}
	fmt.Println(len(tl.Anomalies), "anomalies")
	// Output:
	// ann wrote lines 1 to 1
	// bob wrote lines 1 to 1
	// 0 anomalies
}

// A line of the out file, built and read back: the epoch is the czxid of
// the writer's election znode, so a newer leader always has a larger one.
func ExampleParseLine() {
	at := time.Date(2026, 11, 23, 9, 30, 0, 5, time.UTC)
	line := speaker.Line{Time: at, Name: "speaker-1", Counter: 7, Epoch: 4294967302}
	fmt.Println(line)
	back, err := speaker.ParseLine(line.String())
	fmt.Println(back.Name, back.Counter, back.Epoch, err)
	// Output:
	// 2026-11-23T09:30:00.000000005Z speaker-1 7 epoch=4294967302
	// speaker-1 7 4294967302 <nil>
}
