package nodemonitor

import (
	"errors"
	"testing"

	"github.com/go-zookeeper/zk"
)

// A path the monitor may not use is refused before anything is created,
// by the one check of znode paths (recoverable.ValidatePath): an error
// that is both the monitor's kind and ZooKeeper's.
func TestABadPathIsRefusedFirst(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"election", "/", "/e/", "/zookeeper/e"} {
		if _, err := newConfig([]Option{WithPath(p)}); !errors.Is(err, ErrInvalid) || !errors.Is(err, zk.ErrInvalidPath) {
			t.Errorf("WithPath(%q): err %v, want ErrInvalid and zk.ErrInvalidPath", p, err)
		}
	}
	if _, err := newConfig([]Option{WithPath("/e")}); err != nil {
		t.Errorf("WithPath(\"/e\"): %v", err)
	}
}
