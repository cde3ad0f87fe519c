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
// ValidatePath refuses exactly them, saying why, and the two a recipe may
// not keep its znodes in: the root, and /zookeeper, the servers' own.
func TestValidatePathRefusesWhatZooKeeperRefuses(t *testing.T) {
	for path, why := range map[string]string{
		"/":              "is the root",
		"/zookeeper":     "reserves",
		"/zookeeper/cfg": "reserves",
		"":               "not absolute",
		"seq":            "not absolute",
		"/seq/":          "ends in /",
		"/a//b":          "empty component",
		"/a/./b":         ". or ..",
		"/a/..":          ". or ..",
		"/seq\x00":       "control character",
		"/seq\n":         "control character",
		"/seq\x7f":       "control character",
		"/seq\u0085":     "control character",
		"/seq\u009f":     "control character",
		"/seq\uf000":     "U+F000",
		"/seq\uf8ff":     "U+F8FF",
		"/seq\ufff0":     "U+FFF0",
		"/seq\ufffe":     "U+FFFE",
		"/seq\ue000":     "U+E000",
		"/seq\uffff":     "U+FFFF",
		"/seq😀":          "U+1F600",
		"/seq\xff":       "UTF-8",
	} {
		err := recoverable.ValidatePath("root", path)
		if err == nil || !strings.Contains(err.Error(), why) || !errors.Is(err, zk.ErrInvalidPath) {
			t.Errorf("ValidatePath(%q) = %v, want an ErrInvalidPath saying %q", path, err, why)
		}
	}
	for _, path := range []string{"/zookeeper2", "/a/zookeeper", "/seq", "/a/b.c/d-e_f", "/é/日本", "/seq\u00a0", "/seq\uf900", "/seq\uffef", "/..a", "/a.."} {
		if err := recoverable.ValidatePath("root", path); err != nil {
			t.Errorf("ValidatePath(%q) = %v, want nil: ZooKeeper takes it", path, err)
		}
	}
}

// A command prints a bad path under its own name for the flag, so the
// error names the field it was given, and says the rest apart from it.
func TestPathErrorNamesItsField(t *testing.T) {
	err := recoverable.ValidatePath("election", "/seq/")
	var perr *recoverable.PathError
	if !errors.As(err, &perr) {
		t.Fatalf("ValidatePath = %v (%T), want a *PathError", err, err)
	}
	if want := `"/seq/" ends in /`; perr.Field != "election" || perr.Reason() != want || err.Error() != "election: "+want {
		t.Errorf("field %q, reason %q, error %q; want election, %q, election: %[4]s", perr.Field, perr.Reason(), err, want)
	}
}
