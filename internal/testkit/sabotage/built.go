package sabotage

import (
	"fmt"
	"os"
	"sync"
)

// built holds one build per kind and list of packages, for every test of
// a test binary.
var built sync.Map // key -> *build

type build struct {
	once sync.Once
	dir  string
	err  error
}

// Built builds pkgs into a folder of their own, with the guards of edits
// taken out (none: a plain build), as `make build` puts the commands into
// bin/, once per test binary, and returns the folder. RemoveBuilt deletes
// them all.
func Built(edits []Edit, pkgs ...string) (string, error) {
	key := fmt.Sprint(edits, pkgs)
	b, _ := built.LoadOrStore(key, &build{})
	bb := b.(*build)
	bb.once.Do(func() {
		bb.dir, bb.err = os.MkdirTemp("", "sabotage-bin-")
		if bb.err != nil {
			return
		}
		bb.err = Build(bb.dir, edits, pkgs...)
	})
	return bb.dir, bb.err
}

// RemoveBuilt deletes every folder that Built made: a TestMain's last step.
func RemoveBuilt() {
	built.Range(func(_, b any) bool {
		if d := b.(*build).dir; d != "" {
			_ = os.RemoveAll(d)
		}
		return true
	})
}
