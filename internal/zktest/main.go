package zktest

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

// mainTB is the little of testing.TB that Start needs outside a test.
type mainTB struct {
	testing.TB
	cleanups []func()
	failed   bool
}

func (m *mainTB) Helper()                   {}
func (m *mainTB) Cleanup(f func())          { m.cleanups = append(m.cleanups, f) }
func (m *mainTB) Failed() bool              { return m.failed }
func (m *mainTB) Logf(f string, a ...any)   { fmt.Fprintf(os.Stderr, f+"\n", a...) }
func (m *mainTB) Errorf(f string, a ...any) { m.failed = true; m.Logf(f, a...) }
func (m *mainTB) Fatalf(f string, a ...any) { m.Errorf(f, a...); panic(errFatal) }
func (m *mainTB) Skip(...any)               { panic(errSkip) }

var errFatal, errSkip = new(int), new(int)

// Main runs a package's tests and examples with one standalone server for
// the examples, whose addresses it stores in *servers. Under -short it
// starts nothing and skips the examples, which need the server.
func Main(m *testing.M, servers *[]string) (code int) {
	flag.Parse()
	if testing.Short() {
		skip := "^Example"
		if s := flag.Lookup("test.skip"); s != nil && s.Value.String() != "" {
			skip = s.Value.String() + "|" + skip
		}
		_ = flag.Set("test.skip", skip)
		return m.Run()
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
	}()
	*servers = Start(tb, 1).Servers()
	return m.Run()
}
