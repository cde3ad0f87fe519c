package sabotage

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every guard is where its edit expects it, once, and the edit changes the
// file: a guard that moved fails here, in unit time, and not as a broken
// build that passes its soak.
func TestEveryGuardIsWhereItsEditExpects(t *testing.T) {
	root := moduleRoot(t)
	for _, e := range Guards {
		src, err := os.ReadFile(filepath.Join(root, e.File))
		if err != nil {
			t.Fatal(err)
		}
		out, err := e.Apply(src)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if string(out) == string(src) {
			t.Errorf("the edit of %s (%s) changes nothing", e.File, e.Why)
		}
	}
}

// An edit whose lines are missing, or found twice, fails loudly with
// ErrAnchor, naming the file.
func TestApplyFailsWhenTheGuardIsNotThereOnce(t *testing.T) {
	e := Edit{File: "x.go", Find: []string{"guard()"}, Put: []string{}, Why: "no guard"}
	for _, src := range []string{"package x\n\nfunc f() {}\n", "package x\n\nfunc f() {\n\tguard()\n\tguard()\n}\n"} {
		_, err := e.Apply([]byte(src))
		if !errors.Is(err, ErrAnchor) || !strings.Contains(err.Error(), "x.go") {
			t.Errorf("Apply on %q = %v, want ErrAnchor naming x.go", src, err)
		}
	}
	if _, err := (Edit{File: "x.go"}).Apply([]byte("guard()\n")); !errors.Is(err, ErrAnchor) {
		t.Errorf("an edit with no lines to find: %v, want ErrAnchor", err)
	}
}

// The lines are found whatever their indentation, and what replaces them
// takes the indentation of the first.
func TestApplyKeepsTheIndentation(t *testing.T) {
	src := "func f() {\n\tif ok {\n\t\tstop()\n\t\treturn true\n\t}\n}\n"
	e := Edit{File: "x.go", Find: []string{"stop()", "  return true"}, Put: []string{"return false"}}
	out, err := e.Apply([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if want := "func f() {\n\tif ok {\n\t\treturn false\n\t}\n}\n"; string(out) != want {
		t.Errorf("Apply = %q, want %q", out, want)
	}
}

// The overlay swaps each touched file for its edited copy, and the broken
// build of every package the guards are in compiles.
func TestTheBrokenBuildCompiles(t *testing.T) {
	root := moduleRoot(t)
	dir := t.TempDir()
	overlay, err := Overlay(root, dir, Guards)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(overlay)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]bool{}
	for _, e := range Guards {
		if !strings.Contains(string(b), filepath.Join(root, e.File)) {
			t.Errorf("the overlay does not replace %s: %s", e.File, b)
		}
		pkgs["./"+filepath.Dir(e.File)] = true
	}
	args := []string{"build", "-o", os.DevNull, "-overlay", overlay}
	for p := range pkgs {
		args = append(args, p)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -overlay: %v\n%s", err, out)
	}
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// Under make test, Built takes a build from the prebuilt folder, and a
// build that the Catalog lacks fails with ErrNotInCatalog instead of
// being built late, beside the soaks.
func TestBuiltTakesTheCatalogsPrebuiltFolder(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("ZKTEST_BIN", bin)
	listed := Spec{Edits: []Edit{{File: "a.go", Find: []string{"x"}, Put: []string{}, Why: "test"}}, Pkgs: []string{"zkspeaker/cmd/prebuilt-here"}}
	want := filepath.Join(bin, "sabotage", listed.Key())
	if err := os.MkdirAll(want, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := Built(listed.Edits, listed.Pkgs...); err == nil || got == want {
		t.Fatalf("Built before the prebuild is complete = %q, %v; want its own build (which fails here)", got, err)
	}
	if err := os.WriteFile(filepath.Join(bin, "sabotage", completeMark), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	listed.Pkgs = []string{"zkspeaker/cmd/prebuilt-here", "zkspeaker/cmd/beside"}
	if err := os.MkdirAll(filepath.Join(bin, "sabotage", listed.Key()), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := Built(listed.Edits, listed.Pkgs...); err != nil || got != filepath.Join(bin, "sabotage", listed.Key()) {
		t.Fatalf("Built = %q, %v; want the prebuilt folder", got, err)
	}
	if _, err := Built(listed.Edits, "zkspeaker/cmd/not-listed"); !errors.Is(err, ErrNotInCatalog) {
		t.Fatalf("Built of a build not prebuilt = %v, want ErrNotInCatalog", err)
	}
}

// A spec's key depends on its edits and packages alone.
func TestSpecKeys(t *testing.T) {
	a := Spec{Edits: Election, Pkgs: []string{"zkspeaker/cmd/speaker"}}
	b := Spec{Edits: append([]Edit(nil), Election...), Pkgs: []string{"zkspeaker/cmd/speaker"}}
	if a.Key() != b.Key() {
		t.Errorf("equal specs have keys %s and %s", a.Key(), b.Key())
	}
	if c := (Spec{Pkgs: a.Pkgs}); c.Key() == a.Key() {
		t.Errorf("a plain and a broken build share the key %s", a.Key())
	}
}
