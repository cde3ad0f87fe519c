package program

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrTemplate marks a --cmd template that cannot run.
var ErrTemplate = errors.New("program: bad template")

// badTemplate is an ErrTemplate that reads as its reason alone, a line
// that names --cmd: the soak's configuration error comes before it.
type badTemplate struct{ reason string }

func (e badTemplate) Error() string { return e.reason }
func (e badTemplate) Unwrap() error { return ErrTemplate }

// bad is an ErrTemplate with the reason that format says.
func bad(format string, args ...any) error { return badTemplate{fmt.Sprintf(format, args...)} }

// Placeholders are what a template may name, in the order the contract
// lists them: {servers} (the process's own proxies, host:port,…), {name},
// {out}, {path} (the election's parent znode) and {session} (a duration
// such as 2s).
var Placeholders = []string{"servers", "name", "out", "path", "session"}

// needed are the placeholders a template cannot do without: the process
// must reach ZooKeeper through its own proxies, or its faults are no one's;
// it must write where the checker reads; and it must sign its lines with
// the name the faults are aimed at, or no fault explains anything.
var needed = []string{"servers", "name", "out"}

// Template is a parsed --cmd: the program and its arguments, each a word
// that may hold placeholders.
type Template struct {
	words []string
}

// Parse splits s into words as a shell would, honouring single and double
// quotes and backslashes but nothing else (no variables, globs or pipes:
// the words go to exec, not to a shell), and checks its placeholders.
func Parse(s string) (Template, error) {
	words, err := split(s)
	switch {
	case err != nil:
		return Template{}, err
	case len(words) == 0:
		return Template{}, bad("--cmd is empty: give the command line of the program under test")
	case len(placeholdersIn(words[0])) > 0:
		return Template{}, bad("--cmd must begin with the program itself, not %q", words[0])
	}
	seen := map[string]bool{}
	for _, w := range words {
		for _, p := range placeholdersIn(w) {
			if !known(p) {
				return Template{}, bad("--cmd has an unknown placeholder {%s} (want some of {%s})", p, strings.Join(Placeholders, "}, {"))
			}
			seen[p] = true
		}
	}
	for _, p := range needed {
		if !seen[p] {
			return Template{}, bad("--cmd must pass {%s} to the program (docs/chaos.md, the contract)", p)
		}
	}
	return Template{words: words}, nil
}

// Program is the template's first word: the program to run.
func (t Template) Program() string { return t.words[0] }

// Has says whether the template passes the placeholder p anywhere.
func (t Template) Has(p string) bool {
	for _, w := range t.words {
		for _, q := range placeholdersIn(w) {
			if q == p {
				return true
			}
		}
	}
	return false
}

// Args are the program's arguments with each placeholder replaced by its
// value in values.
func (t Template) Args(values map[string]string) []string {
	out := make([]string, 0, len(t.words)-1)
	for _, w := range t.words[1:] {
		out = append(out, expand(w, values))
	}
	return out
}

// expand replaces every placeholder of w by its value.
func expand(w string, values map[string]string) string {
	var b strings.Builder
	for {
		i, j := nextPlaceholder(w)
		if i < 0 {
			return b.String() + w
		}
		b.WriteString(w[:i])
		b.WriteString(values[w[i+1:j]])
		w = w[j+1:]
	}
}

// placeholdersIn lists the placeholders of w, in order.
func placeholdersIn(w string) []string {
	var out []string
	for {
		i, j := nextPlaceholder(w)
		if i < 0 {
			return out
		}
		out = append(out, w[i+1:j])
		w = w[j+1:]
	}
}

// nextPlaceholder finds the first placeholder of w: a '{', one or more
// lower-case letters, a '}'. It returns the braces' indexes, or -1. Other
// braces (a program's own JSON argument, say) are left as they are.
func nextPlaceholder(w string) (open, end int) {
	for i := 0; i < len(w); i++ {
		if w[i] != '{' {
			continue
		}
		j := i + 1
		for j < len(w) && w[j] >= 'a' && w[j] <= 'z' {
			j++
		}
		if j > i+1 && j < len(w) && w[j] == '}' {
			return i, j
		}
	}
	return -1, -1
}

func known(p string) bool { return slices.Contains(Placeholders, p) }
