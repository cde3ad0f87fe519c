package live

import (
	"cmp"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"zkspeaker/internal/fourletter"
	"zkspeaker/nodemonitor"
	"zkspeaker/recipes/barrier"
	"zkspeaker/recipes/lock"
	"zkspeaker/recipes/queue"
	"zkspeaker/znodemonitor"
)

// maxLog bounds the event log the page shows.
const maxLog = 200

// Hub holds what the readers last saw, makes a Board of it at each change
// and hands that Board to every page. A page gets only the newest Board:
// one that reads slowly skips the Boards it had no time for, and delays
// neither the readers nor the other pages.
type Hub struct {
	mu    sync.Mutex
	parts parts
	board Board
	data  []byte // board as JSON, what every page gets
	// content is the board's panels alone as JSON, to tell a change from
	// a look that found nothing new.
	content []byte
	subs    map[chan []byte]struct{}
	// vacant is, for each election seen without a leader, who led last
	// and when ZooKeeper told that it left: to tell how long nobody led
	// when the next one comes, and to split the out file's gap there.
	vacant map[string]handover
	// told holds the out file's gaps the log has told.
	told map[gapKey]bool
	now  func() time.Time
}

// parts is what the readers saw, before it is drawn: the elections need
// the servers' sightings to say who watches whom.
type parts struct {
	election      *nodemonitor.View
	lock          *lock.View
	single        *znodemonitor.Holder
	electionPanel Panel
	lockPanel     Panel
	singlePanel   Panel
	sightings     fourletter.Sightings
	group         *Group
	config        *Config
	sequences     *Sequences
	barrier       *barrier.View
	barrierPanel  Panel
	queue         *queue.View
	queuePanel    Panel
	queueLast     *Taken
	out           *Out
	// handovers are the last changes of leader zkview saw, which split
	// the out file's gaps.
	handovers []handover
	// made holds the creation time (ctime, Unix milliseconds) of the
	// znodes found at a look that no notification caused (the first
	// one, or one after a reconnect): their candidates joined then.
	made map[string]float64
}

// NewHub returns a Hub with an empty Board.
func NewHub() *Hub {
	h := &Hub{subs: map[chan []byte]struct{}{}, vacant: map[string]handover{}, now: time.Now}
	h.parts.made = map[string]float64{}
	h.board.Servers, h.board.Log = []Server{}, []Event{}
	h.data, _ = json.Marshal(h.board)
	return h
}

// Board returns the current Board.
func (h *Hub) Board() Board {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.board
}

// update changes the parts with f and sends the new Board to every page.
// notified is when the ZooKeeper notification behind the change arrived,
// zero when there was none.
func (h *Hub) update(notified time.Time, cause string, f func(*parts)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f(&h.parts)
	next := h.parts.draw()
	// A look that found nothing new (the servers asked again, a watch
	// that fired for a change already read) sends nothing.
	content, err := json.Marshal(next)
	if err != nil {
		return // no value of a Board fails to marshal
	}
	if string(content) == string(h.content) {
		return
	}
	h.content = content
	next.Version = h.board.Version + 1
	next.Cause = cause
	told := h.now()
	if !notified.IsZero() {
		next.Notified, told = millis(notified), notified
	}
	next.Log = merge(h.board.Log, h.changes(h.board, next, told))
	next.Out = withHandovers(h.parts.out, h.parts.handovers) // with one this change may have told
	next.Now = millis(h.now())
	h.board = next
	data, err := json.Marshal(next)
	if err != nil {
		return // no value of a Board fails to marshal
	}
	h.data = data
	for ch := range h.subs {
		offer(ch, data)
	}
}

// merge adds events to the log in the order of their times (a first look
// tells of what happened before zkview started), and keeps the last
// maxLog.
func merge(log, events []Event) []Event {
	out := append(slices.Clone(log), events...)
	slices.SortStableFunc(out, func(a, b Event) int { return cmp.Compare(a.At, b.At) })
	return out[max(0, len(out)-maxLog):]
}

// offer puts data in ch, replacing a Board the page has not taken yet:
// the newest Board holds everything an older one did.
func offer(ch chan []byte, data []byte) {
	select {
	case ch <- data:
	default:
		select {
		case <-ch:
		default:
		}
		ch <- data // only the hub sends, under its lock: there is room now
	}
}

// Subscribe returns a channel that carries the current Board at once and
// then each newer one, until cancel is called.
func (h *Hub) Subscribe() (boards <-chan []byte, cancel func()) {
	ch := make(chan []byte, 1)
	h.mu.Lock()
	ch <- h.data
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.subs, ch)
		h.mu.Unlock()
	}
}

// millis is t in Unix milliseconds, with the fraction: what JavaScript's
// clocks give.
func millis(t time.Time) float64 { return float64(t.UnixMicro()) / 1000 }
