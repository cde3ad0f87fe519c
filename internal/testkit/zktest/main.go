package zktest

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"zkspeaker/internal/testkit/leakcheck"
)

// TB is the part of testing.TB that Start needs. *testing.T and
// *testing.B have it, and so has Main's own, which runs outside any test.
type TB interface {
	Helper()
	Cleanup(func())
	Failed() bool
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Skip(args ...any)
}

// mainTB is Main's TB: cleanups run when Main ends, and a fatal error ends
// Main with status 1.
type mainTB struct {
	cleanups []func()
	failed   bool
}

// The TB methods, for TestMain: logs go to stderr, Fatalf panics to
// unwind to Main, which reports it.
func (m *mainTB) Helper()                   {}
func (m *mainTB) Cleanup(f func())          { m.cleanups = append(m.cleanups, f) }
func (m *mainTB) Failed() bool              { return m.failed }
func (m *mainTB) Logf(f string, a ...any)   { fmt.Fprintf(os.Stderr, f+"\n", a...) }
func (m *mainTB) Errorf(f string, a ...any) { m.failed = true; m.Logf(f, a...) }
func (m *mainTB) Fatalf(f string, a ...any) { m.Errorf(f, a...); panic(errFatal) }
func (m *mainTB) Skip(...any)               { panic(errSkip) }

var errFatal, errSkip = new(int), new(int)

// Main runs a package's tests and examples with one standalone server, the
// one Shared returns, whose addresses it stores in *servers, then checks
// that the tests left no goroutine running (leakcheck). Under -short it starts
// nothing and skips the examples, which need the server.
func Main(m *testing.M, servers *[]string) (code int) { return mainOf(m, servers, 1) }

// mainOf is Main with n servers: a standalone one, or an ensemble.
func mainOf(m *testing.M, servers *[]string, n int) (code int) {
	flag.Parse()
	if testing.Short() {
		skip := "^Example"
		if s := flag.Lookup("test.skip"); s != nil && s.Value.String() != "" {
			skip = s.Value.String() + "|" + skip
		}
		_ = flag.Set("test.skip", skip)
		return leakcheck.Main(m)
	}
	tb := &mainTB{}
	defer func() {
		for i := len(tb.cleanups) - 1; i >= 0; i-- {
			tb.cleanups[i]()
		}
		if r := recover(); r != nil {
			if r != errFatal {
				panic(r)
			}
			code = 1
		}
		code = leakcheck.Check(code)
	}()
	c := Start(tb, n)
	sharedMu.Lock()
	shared = c
	sharedMu.Unlock()
	*servers = c.Servers()
	return m.Run()
}
