// Command snapshot saves a PNG of zkview's page as a browser shows it, for
// the course: `make screenshots` runs the demo and calls it at three
// moments.
//
//	snapshot URL FILE.png
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
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: snapshot URL FILE.png")
		os.Exit(2)
	}
	tab, closeTab, err := browser.Open(context.Background(), 1400, 900)
	if err != nil {
		fmt.Fprintln(os.Stderr, "snapshot:", err)
		os.Exit(1)
	}
	err = browser.Screenshot(tab, os.Args[1], ready, os.Args[2], 20*time.Second)
	closeTab()
	if err != nil {
		fmt.Fprintln(os.Stderr, "snapshot:", err)
		os.Exit(1)
	}
}
