package recoverable_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// go-zookeeper refuses these paths at once with ErrInvalidPath, and the
// server's PathUtils refuses the rest (a surrogate, which is how Java holds
// a character above U+FFFF, and U+E000 to U+EFFF, U+FFFF); a caller that
// does not check first retries a request that can never succeed.
// ValidatePath refuses exactly them, saying why.
func TestValidatePathRefusesWhatZooKeeperRefuses(t *testing.T) {
	for path, why := range map[string]string{
		"":           "not absolute",
		"seq":        "not absolute",
		"/seq/":      "ends in /",
		"/a//b":      "empty component",
		"/a/./b":     ". or ..",
		"/a/..":      ". or ..",
		"/seq\x00":   "control character",
		"/seq\n":     "control character",
		"/seq\x7f":   "control character",
		"/seq\u0085": "control character",
		"/seq\u009f": "control character",
		"/seq\uf000": "U+F000",
		"/seq\uf8ff": "U+F8FF",
		"/seq\ufff0": "U+FFF0",
		"/seq\ufffe": "U+FFFE",
		"/seq\ue000": "U+E000",
		"/seq\uffff": "U+FFFF",
		"/seq😀":      "U+1F600",
		"/seq\xff":   "UTF-8",
	} {
		err := recoverable.ValidatePath(path)
		if err == nil || !strings.Contains(err.Error(), why) || !errors.Is(err, zk.ErrInvalidPath) {
			t.Errorf("ValidatePath(%q) = %v, want an ErrInvalidPath saying %q", path, err, why)
		}
	}
	for _, path := range []string{"/", "/seq", "/a/b.c/d-e_f", "/é/日本", "/seq\u00a0", "/seq\uf900", "/seq\uffef", "/..a", "/a.."} {
		if err := recoverable.ValidatePath(path); err != nil {
			t.Errorf("ValidatePath(%q) = %v, want nil: ZooKeeper takes it", path, err)
		}
	}
}
