package chaos

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/speaker"
)

// RecipeConfig runs the configuration service: updaters (u1…) that each
// write their own key (/chaos-config/u1…) again and again, each write a
// `zkconfig set` of the next number, and for each key a watcher (v1…)
// running `zkconfig watch`, each behind fault proxies of its own. A write
// is acknowledged when its set exits 0. The watchers' values go to
// out.txt as lines "<time> v1 <n> value=<number>", so the picture shows
// when each watcher heard of a write.
const RecipeConfig = "config"

const configPath = "/chaos-config"

// isUpdater says whether the slot called name is a config updater.
func isUpdater(name string) bool { return strings.HasPrefix(name, "u") }

// keyHit names the key a fault hit: its updater's or its watcher's
// process or network, or an operator's delete of its znode; "" for the
// servers' faults.
func keyHit(f Fault) string {
	if f.Kind == DeleteLeader {
		if key, ok := strings.CutPrefix(f.Target, configPath+"/"); ok {
			return key
		}
		return ""
	}
	if f.Kind.hitsAProcess() {
		return keyOf(f.Target)
	}
	return ""
}

// keyOf is the key that the updater or watcher called name writes or
// watches: v2 watches u2.
func keyOf(name string) string { return "u" + name[1:] }

// configArgv is a config process's command line; life counts the slot's
// processes from 1, and an updater's life is the value it writes.
func (c *Config) configArgv(name, servers string, life int) []string {
	common := []string{"--servers", servers, "--path", configPath, "--session-timeout", c.Session.String(), "--log-level", "info"}
	if isUpdater(name) {
		return append(append([]string{"set"}, common...), keyOf(name), strconv.Itoa(life))
	}
	return append(append([]string{"watch"}, common...), keyOf(name))
}

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

// line implements lineSink: "15:04:05.000 /chaos-config/u1 = 17".
func (k *valueSink) line(name string, n uint64, at time.Time, text string) {
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
func (s *soak) finalValues(ctx context.Context) map[string]int64 {
	out := map[string]int64{}
	for _, sp := range s.speakers {
		if !isUpdater(sp.name) {
			continue
		}
		path := configPath + "/" + keyOf(sp.name)
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		_ = s.op.conn().Sync(c, path)
		data, _, err := s.op.conn().Get(c, path)
		cancel()
		if v, perr := strconv.ParseInt(string(data), 10, 64); err == nil && perr == nil {
			out[keyOf(sp.name)] = v
		}
	}
	return out
}

// stopUpdatersFirst ends the config soak's writes, waits the bound for the
// watchers to hear the last ones, and reads what the keys hold then.
func (s *soak) stopUpdatersFirst(ctx context.Context) map[string]int64 {
	var wg sync.WaitGroup
	for _, sp := range s.speakers {
		if isUpdater(sp.name) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.noteExit(sp.stop(syscall.SIGTERM, ExitLimit))
			}()
		}
	}
	wg.Wait()
	sleep(ctx, s.cfg.Session+s.cfg.Tick+Slack)
	return s.finalValues(ctx)
}

// prepareConfig makes the keys' parent.
func (s *soak) prepareConfig(ctx context.Context) error {
	_, err := s.op.conn().Create(ctx, configPath, nil, zk.WorldACL(zk.PermAll))
	return err
}

// ConfigInput is what the config soak adds to the checker's input.
type ConfigInput struct {
	// Values are the values each watcher printed, by watcher.
	Values map[string][]watched
	// Acked is, by key, the highest value whose set exited 0.
	Acked map[string]int64
	// Unsure is, by key, the values whose set did not say it succeeded:
	// killed, timed out or refused. Such a write may still land, later
	// than the next one (a request held in a black hole, delivered on the
	// heal while its session lives), so a key or a watcher may go back to
	// it: the documented price of the chapter's unconditional write, not a
	// fault of the service.
	Unsure map[string]map[int64]bool
	// Final is, by key, what a synced read found once the updaters had
	// stopped and the bound had passed.
	Final map[string]int64
	// Tried is, by key, how many sets its updater started: acknowledged
	// or not, for the report's count.
	Tried map[string]int
}

// checkConfig holds the config soak to its rules: a watcher's values
// never go back within one run of it; no acknowledged write is lost (the
// final value is at least the highest acknowledged); and each watcher's
// last value is the final one.
func checkConfig(in *ConfigInput) (back, lost, late, stale []Finding) {
	for name, vs := range in.Values {
		for i := 1; i < len(vs); i++ {
			if vs[i].Life != vs[i-1].Life || vs[i].Value >= vs[i-1].Value {
				continue
			}
			f := Finding{Time: vs[i].At, Detail: fmt.Sprintf("%s saw %s go back from %d to %d", name, keyOf(name), vs[i-1].Value, vs[i].Value)}
			if in.Unsure[keyOf(name)][vs[i].Value] {
				f.Detail += ", a write whose set did not say it succeeded, landing late"
				late = append(late, f)
				continue
			}
			back = append(back, f)
		}
	}
	for key, acked := range in.Acked {
		final, ok := in.Final[key]
		switch {
		case ok && final >= acked:
		case ok && in.Unsure[key][final]:
			late = append(late, Finding{Detail: fmt.Sprintf("%s holds %d after %d was acknowledged: %d's set did not say it succeeded, and its write landed late", key, final, acked, final)})
		default:
			lost = append(lost, Finding{Detail: fmt.Sprintf("%s holds %d (read: %v) after %d was acknowledged", key, final, ok, acked)})
		}
	}
	for name, vs := range in.Values {
		final, ok := in.Final[keyOf(name)]
		if ok && (len(vs) == 0 || vs[len(vs)-1].Value != final) {
			last := "nothing"
			if len(vs) > 0 {
				last = strconv.FormatInt(vs[len(vs)-1].Value, 10)
			}
			stale = append(stale, Finding{Detail: fmt.Sprintf("%s's last value of %s is %s; the key holds %d", name, keyOf(name), last, final)})
		}
	}
	sortFindings(back)
	sortFindings(lost)
	sortFindings(late)
	sortFindings(stale)
	return back, lost, late, stale
}

// configInput is the checker's view of the config soak; nil for the others.
func (s *soak) configInput(final map[string]int64) *ConfigInput {
	if s.values == nil {
		return nil
	}
	in := &ConfigInput{Values: map[string][]watched{}, Acked: map[string]int64{}, Final: final, Unsure: map[string]map[int64]bool{}, Tried: map[string]int{}}
	s.values.mu.Lock()
	for name, vs := range s.values.values {
		in.Values[name] = append([]watched(nil), vs...)
	}
	s.values.mu.Unlock()
	for _, sp := range s.speakers {
		if !isUpdater(sp.name) {
			continue
		}
		key := keyOf(sp.name)
		in.Unsure[key] = map[int64]bool{}
		lives := sp.livesOf()
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
