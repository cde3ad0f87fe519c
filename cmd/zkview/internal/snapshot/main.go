// Command snapshot saves a PNG of zkview's page as a browser shows it, for
// the course: `make screenshots` runs the demo and calls it at its steps.
//
//	snapshot URL FILE.png [WIDTHxHEIGHT]
//
// Without a size it takes the whole page in a 1400×900 window. With one,
// it takes exactly that window and nothing below it: what a projector of
// that size shows, so that a picture at 1280x720 proves that the page fits
// without scrolling.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"zkspeaker/cmd/zkview/internal/browser"
)

// The page is ready once it has drawn a Board and the out file's strip,
// when there is one.
const ready = `window.zkviewVersion > 0`

func main() {
	if len(os.Args) != 3 && len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: snapshot URL FILE.png [WIDTHxHEIGHT]")
		os.Exit(2)
	}
	width, height, whole := 1400, 900, true
	if len(os.Args) == 4 {
		if _, err := fmt.Sscanf(os.Args[3], "%dx%d", &width, &height); err != nil || width < 200 || height < 200 {
			fmt.Fprintf(os.Stderr, "snapshot: %q is no size such as 1280x720\n", os.Args[3])
			os.Exit(2)
		}
		whole = false
	}
	tab, closeTab, err := browser.Open(context.Background(), width, height)
	if err != nil {
		fmt.Fprintln(os.Stderr, "snapshot:", err)
		os.Exit(1)
	}
	err = browser.Screenshot(tab, os.Args[1], ready, os.Args[2], whole, 20*time.Second)
	closeTab()
	if err != nil {
		fmt.Fprintln(os.Stderr, "snapshot:", err)
		os.Exit(1)
	}
}
