// Package browser drives Debian's Chromium, headless, through the DevTools
// protocol (chromedp): how zkview's tests read the page as a student's
// browser shows it, and how the course's screenshots of it are taken.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/chromedp/chromedp"
)

// ErrNoChromium says how to get the browser.
var ErrNoChromium = errors.New("browser: chromium not found: run make test-tools (it installs Debian's chromium package)")

// Find returns the path of a Chromium on this machine.
func Find() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "/Applications/Chromium.app/Contents/MacOS/Chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoChromium
}

// Open starts a headless Chromium of width×height pixels and returns a
// context for chromedp's actions in one tab of it; close ends the browser
// and waits for it.
func Open(ctx context.Context, width, height int) (tab context.Context, close func(), err error) {
	path, err := Find()
	if err != nil {
		return nil, nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.WindowSize(width, height),
		chromedp.Flag("headless", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium will not run as root with its sandbox
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(alloc)
	// Start the browser now, so that a missing library fails here; the
	// page gets exactly width×height, whatever the window's frame takes.
	if err := chromedp.Do(tab, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		cancelTab()
		cancelAlloc()
		return nil, nil, fmt.Errorf("browser: start %s: %w", path, err)
	}
	return tab, func() {
		cancelTab()
		cancelAlloc()
	}, nil
}

// Screenshot saves the page at url, once ready reports true (a JavaScript
// expression), as a PNG in file: the whole page, or only the window
// (what a screen of the window's size shows, nothing below it).
func Screenshot(tab context.Context, url, ready, file string, whole bool, wait time.Duration) error {
	ctx, cancel := context.WithTimeout(tab, wait)
	defer cancel()
	err := chromedp.Do(ctx, chromedp.Navigate(url))
	if err == nil {
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](ready, chromedp.WithPollingInterval(50*time.Millisecond)))
	}
	var png []byte
	if err == nil && whole {
		png, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
	} else if err == nil {
		png, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
	}
	if err != nil {
		return fmt.Errorf("browser: screenshot of %s: %w", url, err)
	}
	return os.WriteFile(file, png, 0o644)
}
