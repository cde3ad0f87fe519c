package scripttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"zkspeaker/internal/testkit/prebuilt"
	"zkspeaker/internal/testkit/zktest"
)

// A flag table of the docs, and the commands whose --help it must match.
type flagTable struct {
	doc, heading string
	program      string
	commands     []string // subcommands; one empty string for the program itself
}

// The flag reference is written by hand, so a test holds it to --help:
// every flag a command's help lists is in its table, and every flag the
// table lists is in the help, for all five programs.
func TestFlagReferenceMatchesHelp(t *testing.T) {
	t.Parallel()
	root, err := zktest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bins := buildAll(t, root)
	ref := filepath.Join(root, "docs", "reference.md")
	for _, tb := range []flagTable{
		{ref, "### `speaker`", "speaker", []string{""}},
		{ref, "### `speaker status`", "speaker", []string{"status"}},
		{ref, "### `speaker timeline [FILE]`", "speaker", []string{"timeline"}},
		{ref, "### `speaker bench`", "speaker", []string{"bench"}},
		{ref, "### `speaker chaos`", "speaker", []string{"chaos"}},
		{ref, "### `zkgroup`", "zkgroup", []string{"create", "join", "list", "delete"}},
		{ref, "### `zkconfig`", "zkconfig", []string{"update", "watch", "set", "get"}},
		{ref, "### `zkview`", "zkview", []string{""}},
		{ref, "### `zkbarrier`", "zkbarrier", []string{"set", "wait", "remove", "run"}},
		{ref, "### `zkqueue`", "zkqueue", []string{"put", "take", "list"}},
		{ref, "### `seqid`", "seqid", []string{"create", "delete", "list", "next", "restore", "persist", "bench"}},
		{filepath.Join(root, "recipes", "lock", "README.md"), "## Run along: `zklock`", "zklock", []string{""}},
		{filepath.Join(root, "recipes", "lock", "README.md"), "### `zklock revoke`", "zklock", []string{"revoke"}},
	} {
		header, rows := readTable(t, tb.doc, tb.heading)
		for _, cmd := range tb.commands {
			args := []string{"--help"}
			if cmd != "" {
				args = []string{cmd, "--help"}
			}
			out, err := exec.Command(bins[tb.program], args...).Output()
			if err != nil {
				t.Fatalf("%s %s: %v", tb.program, strings.Join(args, " "), err)
			}
			help, docs := helpFlags(string(out)), documented(header, rows, cmd)
			if !slices.Equal(help, docs) {
				t.Errorf("%s %s: --help lists %v, %s (%s) lists %v", tb.program, cmd, help, filepath.Base(tb.doc), tb.heading, docs)
			}
		}
	}
}

// buildAll returns the six programs: those make test built, or built into
// a temporary folder.
func buildAll(t *testing.T, root string) map[string]string {
	t.Helper()
	names := []string{"speaker", "zklock", "zkgroup", "zkconfig", "seqid", "zkview", "zkbarrier", "zkqueue"}
	dir, ok := prebuilt.Commands(names...)
	if !ok {
		dir = t.TempDir()
		buildInto(t, root, dir, names)
	}
	bins := map[string]string{}
	for _, p := range names {
		bins[p] = filepath.Join(dir, p)
	}
	return bins
}

// buildInto builds cmd/<name> for each of names into dir.
func buildInto(t *testing.T, root, dir string, names []string) {
	t.Helper()
	args := []string{"build", "-o", dir + string(os.PathSeparator)}
	for _, p := range names {
		args = append(args, "./cmd/"+p)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
}

// readTable returns the first table after heading in doc: its header,
// then its rows.
func readTable(t *testing.T, doc, heading string) (header []string, rows [][]string) {
	t.Helper()
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("%s: no heading %q", doc, heading)
	}
	var all [][]string
	fenced := false // a "#" line in a code block (a shebang) is no heading
	for _, line := range strings.Split(text[i+1:], "\n")[1:] {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if strings.HasPrefix(line, "#") && !fenced {
			break
		}
		if !strings.HasPrefix(line, "|") {
			if len(all) > 0 {
				break
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		all = append(all, cells)
	}
	if len(all) < 3 {
		t.Fatalf("%s: no flag table under %q", doc, heading)
	}
	return all[0], all[2:] // past the header's rule
}

var longFlag = regexp.MustCompile(`--[a-z][a-z-]*`)

// documented returns the long flags of the rows that apply to cmd: every
// row, unless the table has a commands column, whose cell must then name
// cmd or say "all".
func documented(header []string, rows [][]string, cmd string) []string {
	var out []string
	for _, r := range rows {
		if len(header) > 1 && header[1] == "commands" && r[1] != "all" && !slices.Contains(strings.Split(r[1], ", "), cmd) {
			continue
		}
		out = append(out, longFlag.FindAllString(r[0], -1)...)
	}
	sort.Strings(out)
	return out
}

// helpFlags returns the long flags a --help page lists, but --help and
// --version, which every program has. A flag's line starts with its names
// ("-s, --servers host:port"), its description follows on the next lines.
func helpFlags(help string) []string {
	var out []string
	for _, line := range strings.Split(help, "\n") {
		if !strings.HasPrefix(line, "   -") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if !strings.HasPrefix(f, "-") {
				break
			}
			name := strings.TrimSuffix(f, ",")
			if strings.HasPrefix(name, "--") && name != "--help" && name != "--version" {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}
