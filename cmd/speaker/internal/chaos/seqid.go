package chaos

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/speaker"
)

// RecipeSeqid runs the sequence-ID service: persistence processes (p1, p2)
// with one store, and workers (w1…) that loop `seqid next --count K`. The
// soak reads each worker's IDs as they are printed and writes each, with
// the moment it arrived, as a line of out.txt: "<time> w3 <n> id=<ID>",
// n counting the IDs of one `seqid next`. Its fault DataLoss wipes every
// server and runs `seqid restore`.
const RecipeSeqid = "seqid"

// seqid soak settings: the one sequence, its persisters, the batch sizes.
const (
	seqidName       = "chaos"
	seqidPersisters = 2
	seqidMaxCount   = 20
	seqidElection   = "/seqid-persist"
)

// isWorker says whether the slot called name is a seqid worker.
func isWorker(name string) bool { return strings.HasPrefix(name, "w") }

// seqidArgv is a seqid process's command line.
func (c *Config) seqidArgv(name, servers string, count int) []string {
	common := []string{"--servers", servers, "--session-timeout", c.Session.String(), "--log-level", "info"}
	if isWorker(name) {
		return append(append([]string{"next"}, common...), "--count", strconv.Itoa(count),
			"--wait", (4 * c.Session).String(), seqidName)
	}
	return append(append([]string{"persist"}, common...), "--store", c.storeDir(), "--block", "500", "--name", name)
}

// storeDir is the persisters' store: the article's S3.
func (c *Config) storeDir() string { return filepath.Join(c.Dir, "store") }

// lineSink receives what a process prints on stdout, a whole line at a
// time, with n counting its lines from 1 in this life and at the moment it
// arrived: the soak is alive throughout, so a process killed mid-line
// leaves only a torn piece, which is dropped.
type lineSink interface {
	line(name string, n uint64, at time.Time, text string)
}

// readOutput feeds r's whole lines to sink until EOF, and closes first at
// the first one.
func readOutput(name string, r io.Reader, sink lineSink, first chan<- struct{}) {
	br := bufio.NewReader(r)
	for n := uint64(1); ; n++ {
		text, err := br.ReadString('\n')
		if err != nil {
			return // EOF; a piece without its newline is torn, and dropped
		}
		if n == 1 {
			close(first)
		}
		sink.line(name, n, time.Now(), strings.TrimSuffix(text, "\n"))
	}
}

// idSink writes the IDs the workers print into out.txt, one line each.
type idSink struct {
	mu sync.Mutex
	f  *os.File
}

func openIDSink(out string) (*idSink, error) {
	f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &idSink{f: f}, nil
}

// line writes one printed ID as an ID line of name.
func (k *idSink) line(name string, n uint64, at time.Time, text string) {
	l := speaker.Line{Time: at, Name: name, Counter: n, Extra: []string{"id=" + strings.TrimSpace(text)}}
	k.mu.Lock()
	defer k.mu.Unlock()
	_, _ = k.f.Write(l.Append(nil))
}

func (k *idSink) close() { _ = k.f.Close() }

// seqidCommand runs one seqid command as the operator, straight to the
// servers, and returns its output.
func (s *soak) seqidCommand(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.cfg.binary(), append([]string{args[0], "--servers", strings.Join(s.ens.Addrs, ",")}, args[1:]...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("seqid %s: %w: %s", args[0], err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// prepare makes what the recipe needs before its processes start: the
// sequence, and the store's folder.
func (s *soak) prepare(ctx context.Context) error {
	switch s.cfg.Recipe {
	case RecipeGroup:
		_, err := s.op.conn().Create(ctx, groupPath, nil, zk.WorldACL(zk.PermAll))
		return err
	case RecipeConfig:
		return s.prepareConfig(ctx)
	}
	if s.cfg.Recipe != RecipeSeqid {
		return nil
	}
	if err := os.MkdirAll(s.cfg.storeDir(), 0o755); err != nil {
		return err
	}
	_, err := s.seqidCommand(ctx, "create", seqidName)
	return err
}

// loseEverything is the DataLoss fault: every server killed and wiped,
// started afresh, and once a majority serves, `seqid restore` from the
// store, as the article's operator would. It returns the fault log's note.
func (s *soak) loseEverything(ctx context.Context, servers []int) string {
	var notes []string
	for _, id := range servers {
		if err := s.ens.Kill(ctx, id); err != nil {
			notes = append(notes, err.Error())
		}
	}
	for _, id := range servers {
		if err := s.ens.Wipe(id); err != nil {
			notes = append(notes, err.Error())
		}
	}
	for _, id := range servers {
		if err := s.ens.StartServer(ctx, id); err != nil {
			notes = append(notes, err.Error())
		}
	}
	s.awaitQuorum(ctx)
	if err := s.op.reconnect(); err != nil {
		notes = append(notes, err.Error())
	}
	out, err := s.seqidCommand(ctx, "restore", "--store", s.cfg.storeDir())
	if err != nil {
		notes = append(notes, err.Error())
	} else {
		notes = append(notes, "restored: "+strings.Join(strings.Fields(out), " "))
	}
	return strings.Join(notes, "; ")
}
