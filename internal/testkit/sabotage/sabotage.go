// Package sabotage builds commands broken on purpose, for the tests that
// show a chaos checker catches what a missing guard lets through. The
// shipped sources hold no switch for it: the build swaps, with go build
// -overlay, each file that Guards names for a copy made at build time with
// one guard taken out. The copies are made from the files as they are, so
// they cannot drift; a guard that moved or changed fails the build loudly
// instead of leaving a build that is not broken.
package sabotage

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrAnchor says that the lines an Edit replaces are not in its file
// exactly once: the guard moved or changed, and the Edit must follow it.
var ErrAnchor = errors.New("sabotage: guard not found")

// Edit takes one guard out of one file. The lines Find, compared without
// their indentation, must occur in File exactly once, one after the other;
// they become the lines Put, indented as the first of them.
type Edit struct {
	File string   // from the module's root, with slashes
	Find []string // the lines that hold the guard
	Put  []string // what stands in their place in the broken build
	Why  string   // what the broken build does wrong, for the reader
}

// Apply returns src with e's lines replaced, or an error wrapping
// ErrAnchor that names the file and the first line sought.
func (e Edit) Apply(src []byte) ([]byte, error) {
	lines := strings.Split(string(src), "\n")
	at, n := -1, 0
	for i := range lines {
		if matchAt(lines, i, e.Find) {
			at, n = i, n+1
		}
	}
	if len(e.Find) == 0 || n != 1 {
		first := ""
		if len(e.Find) > 0 {
			first = e.Find[0]
		}
		return nil, fmt.Errorf("%w: %s has %d occurrences of %q (want 1): update the edit that breaks it (%s)", ErrAnchor, e.File, n, first, e.Why)
	}
	indent := lines[at][:len(lines[at])-len(strings.TrimLeft(lines[at], " \t"))]
	put := make([]string, len(e.Put))
	for i, l := range e.Put {
		put[i] = indent + l
	}
	out := append(append(append([]string{}, lines[:at]...), put...), lines[at+len(e.Find):]...)
	return []byte(strings.Join(out, "\n")), nil
}

// matchAt reports whether the lines from i on are find's, indentation aside.
func matchAt(lines []string, i int, find []string) bool {
	if i+len(find) > len(lines) {
		return false
	}
	for j, f := range find {
		if strings.TrimSpace(lines[i+j]) != strings.TrimSpace(f) {
			return false
		}
	}
	return true
}

// Overlay writes into dir, for each file that edits touch under the module
// root, a copy with all of its edits applied, and the overlay description
// that go build -overlay reads. It returns the description's path.
func Overlay(root, dir string, edits []Edit) (string, error) {
	files := map[string][]byte{}
	var order []string
	for _, e := range edits {
		src, ok := files[e.File]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(e.File)))
			if err != nil {
				return "", fmt.Errorf("sabotage: %w", err)
			}
			src, order = b, append(order, e.File)
		}
		out, err := e.Apply(src)
		if err != nil {
			return "", err
		}
		files[e.File] = out
	}
	replace := map[string]string{}
	for i, f := range order {
		copyPath := filepath.Join(dir, fmt.Sprintf("%02d-%s", i, filepath.Base(f)))
		if err := os.WriteFile(copyPath, files[f], 0o644); err != nil {
			return "", fmt.Errorf("sabotage: %w", err)
		}
		replace[filepath.Join(root, filepath.FromSlash(f))] = copyPath
	}
	desc, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", fmt.Errorf("sabotage: %w", err)
	}
	path := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(path, desc, 0o644); err != nil {
		return "", fmt.Errorf("sabotage: %w", err)
	}
	return path, nil
}

// Build runs go build -o out/ pkgs in the current folder, with the guards
// of edits taken out (none: a plain build). It returns go build's output
// in its error.
func Build(out string, edits []Edit, pkgs ...string) error {
	args := []string{"build", "-o", out + string(filepath.Separator)}
	if len(edits) > 0 {
		root, err := ModuleRoot()
		if err != nil {
			return err
		}
		dir, err := os.MkdirTemp("", "sabotage-")
		if err != nil {
			return fmt.Errorf("sabotage: %w", err)
		}
		defer os.RemoveAll(dir)
		overlay, err := Overlay(root, dir, edits)
		if err != nil {
			return err
		}
		args = append(args, "-overlay", overlay)
	}
	if b, err := exec.Command("go", append(args, pkgs...)...).CombinedOutput(); err != nil {
		return fmt.Errorf("sabotage: go build: %w\n%s", err, b)
	}
	return nil
}

// ModuleRoot is the folder of the go.mod that the current folder is in.
func ModuleRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("sabotage: go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(b))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("sabotage: not inside a module")
	}
	return filepath.Dir(mod), nil
}
