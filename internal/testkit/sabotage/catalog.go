package sabotage

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"zkspeaker/internal/testkit/prebuilt"
)

// Spec is one build a test asks Built for: pkgs, by import path, with the
// guards of Edits taken out (none: a plain build).
type Spec struct {
	Edits []Edit
	Pkgs  []string
}

// Catalog is every build the soaks ask for that make test has not built
// already (the plain commands): each broken build, and the test programs
// of testdata and docs. make test builds them all into one folder while
// the other packages are tested (the prebuild command, through testrun's
// -prepare), so that the soaks do not build them all at once when they
// start: a dozen builds beside a dozen starting soaks took 40 s, and the
// broken builds' soaks waited for them. A test that asks for a build not
// listed here fails under make test, naming this list.
var Catalog = []Spec{
	{Election, []string{"zkspeaker/cmd/speaker"}},
	{concat(Election, Lock), []string{"zkspeaker/cmd/zklock"}},
	{Reader, []string{"zkspeaker/cmd/zklock"}},
	{Leases, []string{"zkspeaker/cmd/zklock"}},
	{Sequence, []string{"zkspeaker/cmd/seqid"}},
	{Counter, []string{"zkspeaker/cmd/seqid"}},
	{Group, []string{"zkspeaker/cmd/zkgroup"}},
	{Config, []string{"zkspeaker/cmd/zkconfig"}},
	{Barrier, []string{"zkspeaker/cmd/zkbarrier"}},
	{Queue, []string{"zkspeaker/cmd/zkqueue"}},
	{QueueOrder, []string{"zkspeaker/cmd/zkqueue"}},
	{nil, []string{"zkspeaker/cmd/speaker/internal/chaos/group/testdata/forgetfulmember"}},
	{nil, []string{"zkspeaker/cmd/speaker/internal/chaos/program/testdata/eagerspeaker"}},
	{nil, []string{"zkspeaker/cmd/speaker/internal/chaos/program/testdata/pollingspeaker"}},
	{nil, []string{"zkspeaker/docs/peers/zklock"}},
	{nil, []string{"zkspeaker/docs/exercise/speaker"}},
}

// ErrNotInCatalog says that a test under make test asked for a build that
// Catalog does not list, and so was not prebuilt.
var ErrNotInCatalog = errors.New("sabotage: the build is not in sabotage.Catalog, which make test builds before the soaks: add it there")

// Key names the spec's folder among the prebuilt ones: the same edits and
// packages give the same key in every test binary.
func (s Spec) Key() string {
	b, _ := json.Marshal(s) // cannot fail: strings and slices of them
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// String names the spec for a reader: its packages and what it breaks.
func (s Spec) String() string {
	var why []string
	for _, e := range s.Edits {
		why = append(why, e.Why)
	}
	if len(why) == 0 {
		return strings.Join(s.Pkgs, " ")
	}
	return fmt.Sprintf("%s (%s)", strings.Join(s.Pkgs, " "), strings.Join(why, "; "))
}

// PrebuiltDir is where make test's prebuild puts the Catalog's builds,
// under ZKTEST_BIN, and whether there is such a folder.
func PrebuiltDir() (string, bool) {
	dir, ok := prebuilt.Dir()
	return filepath.Join(dir, "sabotage"), ok
}

// completeMark is the file the prebuild writes once every build of the
// Catalog is in place.
const completeMark = ".complete"

// PrebuildAll builds every spec of Catalog into dir/<key>, each in a
// folder of its own renamed into place, and marks dir complete.
func PrebuildAll(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("sabotage: %w", err)
	}
	for _, s := range Catalog {
		if err := prebuildOne(dir, s); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, completeMark), nil, 0o644)
}

// prebuildOne builds s into dir/<key>, unless it is there already.
func prebuildOne(dir string, s Spec) error {
	final := filepath.Join(dir, s.Key())
	if _, err := os.Stat(final); err == nil {
		return nil
	}
	tmp, err := os.MkdirTemp(dir, "building-")
	if err != nil {
		return fmt.Errorf("sabotage: %w", err)
	}
	if err := Build(tmp, s.Edits, s.Pkgs...); err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("%v: %w", s, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("sabotage: %w", err)
	}
	return nil
}

// fromPrebuilt returns the folder of s as the prebuild made it. found is
// false when no complete prebuild exists (go test by hand, or the
// prebuild failed): the caller builds s itself. A complete prebuild
// without s is ErrNotInCatalog.
func fromPrebuilt(s Spec) (dir string, found bool, err error) {
	root, ok := PrebuiltDir()
	if !ok {
		return "", false, nil
	}
	if _, err := os.Stat(filepath.Join(root, completeMark)); err != nil {
		return "", false, nil
	}
	dir = filepath.Join(root, s.Key())
	if _, err := os.Stat(dir); err != nil {
		return "", false, fmt.Errorf("%w: %v", ErrNotInCatalog, s)
	}
	return dir, true, nil
}
