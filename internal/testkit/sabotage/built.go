package sabotage

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"zkspeaker/internal/testkit/prebuilt"
)

// built holds one build per kind and list of packages, for every test of
// a test binary.
var built sync.Map // key -> *build

type build struct {
	once  sync.Once
	dir   string
	err   error
	owned bool // dir is ours to remove, not make test's prebuilt folder
}

// Built builds pkgs into a folder of their own, with the guards of edits
// taken out (none: a plain build), as `make build` puts the commands into
// bin/, once per test binary, and returns the folder. Under make test the
// folder is the one its prebuild made (Catalog), and a build missing there
// is ErrNotInCatalog. RemoveBuilt deletes the folders Built made.
func Built(edits []Edit, pkgs ...string) (string, error) {
	key := fmt.Sprint(edits, pkgs)
	b, _ := built.LoadOrStore(key, &build{})
	bb := b.(*build)
	bb.once.Do(func() {
		if dir, ok := plainPrebuilt(edits, pkgs); ok {
			bb.dir = dir
			return
		}
		var found bool
		if bb.dir, found, bb.err = fromPrebuilt(Spec{edits, pkgs}); found || bb.err != nil {
			return
		}
		bb.dir, bb.err = os.MkdirTemp("", "sabotage-bin-")
		if bb.err != nil {
			return
		}
		bb.owned = true
		bb.err = Build(bb.dir, edits, pkgs...)
	})
	return bb.dir, bb.err
}

// RemoveBuilt deletes every folder that Built made: a TestMain's last step.
func RemoveBuilt() {
	built.Range(func(_, b any) bool {
		if d := b.(*build).dir; d != "" && b.(*build).owned {
			_ = os.RemoveAll(d)
		}
		return true
	})
}

// plainPrebuilt is the folder of the commands make test built for the
// whole run, when a plain build of pkgs, all commands, is asked for.
func plainPrebuilt(edits []Edit, pkgs []string) (string, bool) {
	if len(edits) > 0 {
		return "", false
	}
	var names []string
	for _, p := range pkgs {
		name, ok := strings.CutPrefix(p, "zkspeaker/cmd/")
		if !ok || strings.Contains(name, "/") {
			return "", false
		}
		names = append(names, name)
	}
	return prebuilt.Commands(names...)
}
