// Package page serves zkview's one page: the page itself, from files built
// into the binary (no framework, no CDN: it works offline), the Board as
// JSON, and a stream of Boards as Server-Sent Events.
package page

import (
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"time"

	"zkspeaker/cmd/zkview/internal/live"
)

//go:embed assets
var assets embed.FS

// writeWait bounds one write to a page: a browser that takes no data for
// this long is dropped (it reconnects, and gets the whole Board again),
// so that it holds nothing of ours.
const writeWait = 10 * time.Second

// keepAlive is how often a quiet stream sends a comment, so that a proxy
// or the browser does not take the silence for a dead connection.
const keepAlive = 15 * time.Second

// Handler serves the page, /board and /events from hub.
func Handler(hub *live.Hub) http.Handler {
	files, _ := fs.Sub(assets, "assets") // a path built into the binary
	mux := http.NewServeMux()
	mux.Handle("GET /", http.FileServerFS(files))
	mux.HandleFunc("GET /board", func(w http.ResponseWriter, r *http.Request) {
		boards, cancel := hub.Subscribe()
		defer cancel()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(<-boards)
	})
	mux.HandleFunc("GET /events", func(w http.ResponseWriter, r *http.Request) { stream(w, r, hub) })
	return mux
}

// stream sends the current Board, then each newer one, as Server-Sent
// Events, until the browser goes. The hub hands each page only its newest
// Board, so a page that reads slowly skips Boards rather than queueing
// them.
func stream(w http.ResponseWriter, r *http.Request, hub *live.Hub) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	boards, cancel := hub.Subscribe()
	defer cancel()
	beat := time.NewTicker(keepAlive)
	defer beat.Stop()
	// A browser that loses the stream tries again after a second.
	if !send(w, rc, "retry: 1000\n\n") {
		return
	}
	for {
		var msg string
		select {
		case <-r.Context().Done():
			return
		case data := <-boards:
			msg = fmt.Sprintf("data: %s\n\n", data)
		case <-beat.C:
			msg = ": still here\n\n"
		}
		if !send(w, rc, msg) {
			return
		}
	}
}

// send writes msg and flushes it within writeWait.
func send(w http.ResponseWriter, rc *http.ResponseController, msg string) bool {
	_ = rc.SetWriteDeadline(time.Now().Add(writeWait))
	if _, err := fmt.Fprint(w, msg); err != nil {
		return false
	}
	return rc.Flush() == nil
}
