package program

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// The template is split as a shell quotes words, and its placeholders are
// replaced inside words too: a name with a blank stays one argument.
func TestTemplateSplitsAndExpands(t *testing.T) {
	t.Parallel()
	values := map[string]string{"servers": "127.0.0.1:1,127.0.0.1:2", "name": "s1", "out": "/tmp/a b/out.txt",
		"path": "/election", "session": "2s"}
	for _, tc := range []struct {
		template string
		program  string
		args     []string
	}{
		{"python3 my_speaker.py --zk {servers} --name {name} --out {out}", "python3",
			[]string{"my_speaker.py", "--zk", "127.0.0.1:1,127.0.0.1:2", "--name", "s1", "--out", "/tmp/a b/out.txt"}},
		{`./a\ b --zk={servers} '{name}' "--out={out}" --path {path} --s {session}`, "./a b",
			[]string{"--zk=127.0.0.1:1,127.0.0.1:2", "s1", "--out=/tmp/a b/out.txt", "--path", "/election", "--s", "2s"}},
		{`java -jar "x y.jar" '{"k": 1}' "say \"hi\" \\" {servers}{name} {out}`, "java",
			[]string{"-jar", "x y.jar", `{"k": 1}`, `say "hi" \`, "127.0.0.1:1,127.0.0.1:2s1", "/tmp/a b/out.txt"}},
		{"  p\t{servers}\n{name} {out}  ", "p", []string{"127.0.0.1:1,127.0.0.1:2", "s1", "/tmp/a b/out.txt"}},
	} {
		tpl, err := Parse(tc.template)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.template, err)
			continue
		}
		if got := tpl.Args(values); tpl.Program() != tc.program || !slices.Equal(got, tc.args) {
			t.Errorf("Parse(%q): program %q, args %q; want %q, %q", tc.template, tpl.Program(), got, tc.program, tc.args)
		}
	}
}

// A template that cannot run is refused in one line that names --cmd and
// says what is wrong.
func TestBadTemplatesAreRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ template, says string }{
		{"", "empty"},
		{"   \t", "empty"},
		{"p --name {name} --out {out}", "{servers}"},
		{"p --zk {servers} --name {name}", "{out}"},
		{"p --zk {servers} --out {out}", "{name}"},
		{"p {servers} {name} {out} --epoch {epoch}", "unknown placeholder {epoch}"},
		{"p {servers} {name} {out} {Path}", ""}, // not a placeholder: left as it is
		{"{out} {servers} {name}", "begin with the program"},
		{"p '{servers} {name} {out}", "unclosed '"},
		{`p "{servers} {name} {out}`, `unclosed "`},
		{`p {servers} {name} {out} \`, `lone \`},
	} {
		_, err := Parse(tc.template)
		if tc.says == "" {
			if err != nil {
				t.Errorf("Parse(%q): %v, want no error", tc.template, err)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrTemplate) {
			t.Errorf("Parse(%q): %v, want an ErrTemplate", tc.template, err)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "--cmd ") || !strings.Contains(msg, tc.says) || strings.Contains(msg, "\n") {
			t.Errorf("Parse(%q): %q, want one line naming --cmd that says %q", tc.template, msg, tc.says)
		}
	}
}

// Has tells whether the program is told its election's path: the soak
// aims the operator's deletes only then.
func TestTemplateHas(t *testing.T) {
	t.Parallel()
	tpl, err := Parse("p {servers} {name} --out={out} --path={path}")
	if err != nil {
		t.Fatal(err)
	}
	if !tpl.Has("path") || tpl.Has("session") {
		t.Errorf("Has: path %v, session %v; want true, false", tpl.Has("path"), tpl.Has("session"))
	}
}
