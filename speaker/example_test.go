package speaker_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"zkspeaker/speaker"
)

// Two speakers share one file. The election (played here by hand) lets
// "ann" speak, then hands over to "bob"; the file shows who spoke, and each
// one's counter.
func Example() {
	dir, _ := os.MkdirTemp("", "speaker-example")
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "out.txt")

	ann, _ := speaker.New(out, speaker.WithName("ann"), speaker.WithInterval(time.Hour))
	bob, _ := speaker.New(out, speaker.WithName("bob"), speaker.WithInterval(time.Hour))
	defer ann.Close()
	defer bob.Close()

	ann.StartSpeaking() // elected: the first line is written at once
	ann.StopSpeaking()  // lost the lead: silent from here on
	bob.StartSpeaking() // the successor speaks

	data, _ := os.ReadFile(out)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		fields := strings.Fields(line) // <time> <name> <counter>
		fmt.Println(fields[1], fields[2])
	}
	// Output:
	// ann 1
	// bob 1
}
