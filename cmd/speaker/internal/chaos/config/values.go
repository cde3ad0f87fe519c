package config

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/speaker"
)

// isUpdater says whether the slot called name is a config updater.
func isUpdater(name string) bool { return strings.HasPrefix(name, "u") }

// keyHit names the key a fault hit: its updater's or its watcher's
// process or network, or an operator's delete of its znode; "" for the
// servers' faults.
func keyHit(f chaos.Fault) string {
	if f.Kind == chaos.DeleteLeader {
		if key, ok := strings.CutPrefix(f.Target, path+"/"); ok {
			return key
		}
		return ""
	}
	if f.Kind.HitsAProcess() {
		return keyOf(f.Target)
	}
	return ""
}

// keyOf is the key that the updater or watcher called name writes or
// watches: v2 watches u2.
func keyOf(name string) string { return "u" + name[1:] }

// valueSink writes the watchers' values into out.txt, and keeps them.
type valueSink struct {
	mu     sync.Mutex
	f      *os.File
	values map[string][]watched // by watcher
	lives  map[string]int
}

// watched is one value a watcher printed, in the life it printed it.
type watched struct {
	At    time.Time
	Life  int
	Value int64
}

func openValueSink(out string) (*valueSink, error) {
	f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &valueSink{f: f, values: map[string][]watched{}, lives: map[string]int{}}, nil
}

// Line implements chaos.LineSink: "15:04:05.000 /chaos-config/u1 = 17".
func (k *valueSink) Line(name string, n uint64, at time.Time, text string) {
	_, v, ok := strings.Cut(text, " = ")
	value, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if !ok || err != nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if n == 1 {
		k.lives[name]++
	}
	k.values[name] = append(k.values[name], watched{At: at, Life: k.lives[name], Value: value})
	l := speaker.Line{Time: at, Name: name, Counter: n, Extra: []string{"value=" + strconv.FormatInt(value, 10)}}
	_, _ = k.f.Write(l.Append(nil))
}

func (k *valueSink) close() { _ = k.f.Close() }

// finalValues reads every key through a synced read, as the operator
// would after the updaters stopped.
func finalValues(ctx context.Context, env *chaos.Env) map[string]int64 {
	out := map[string]int64{}
	for name := range env.Lives() {
		if !isUpdater(name) {
			continue
		}
		key := path + "/" + keyOf(name)
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		_ = env.Conn().Sync(c, key)
		data, _, err := env.Conn().Get(c, key)
		cancel()
		if v, perr := strconv.ParseInt(string(data), 10, 64); err == nil && perr == nil {
			out[keyOf(name)] = v
		}
	}
	return out
}

// record is the checker's view of the config soak: the watchers' values,
// and each updater's sets by how they ended.
func record(env *chaos.Env, values *valueSink, final map[string]int64) *Record {
	in := &Record{Values: map[string][]watched{}, Acked: map[string]int64{}, Final: final, Unsure: map[string]map[int64]bool{}, Tried: map[string]int{}}
	values.mu.Lock()
	for name, vs := range values.values {
		in.Values[name] = append([]watched(nil), vs...)
	}
	values.mu.Unlock()
	for name, lives := range env.Lives() {
		if !isUpdater(name) {
			continue
		}
		key := keyOf(name)
		in.Unsure[key] = map[int64]bool{}
		in.Tried[key] = len(lives)
		for i, l := range lives {
			if !l.To.IsZero() && l.Status == 0 && l.Signal == 0 {
				in.Acked[key] = int64(i + 1) // life i+1 wrote i+1
			} else {
				in.Unsure[key][int64(i+1)] = true
			}
		}
	}
	return in
}
