package chaos

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// blindProgram is a program of the user's that is not told where its
// znodes go, as a --cmd without {path} is; toldProgram is told.
var (
	blindProgram = Recipe{Name: "blind-program", Words: ElectionWords, Slots: election.Slots,
		Path: election.Path, Argv: election.Argv, Program: func(*Config) string { return "/bin/sh" },
		Layout: func(*Config) Layout { return Layout{Unknown: "it is not told {path}"} }}
	toldProgram = Recipe{Name: "told-program", Words: ElectionWords, Slots: election.Slots,
		Path: election.Path, Argv: election.Argv, Program: func(*Config) string { return "/bin/sh" },
		Layout: func(*Config) Layout { return Layout{AnyNames: true} }}
)

func init() { Register(blindProgram, toldProgram) }

// A soak never aims a fault at znodes it cannot find: the operator's
// deletes and a lost create are not drawn, and asking for one is bad
// input that names --faults. A program told its path is drawn every kind.
func TestFaultsThatCannotBeAimedAreNotDrawn(t *testing.T) {
	blind := &Config{Recipe: blindProgram.Name, Seed: 1}
	told := &Config{Recipe: toldProgram.Name, Seed: 1}
	wb, wt := blind.weights(), told.weights()
	for _, k := range Kinds() {
		want := weights[k]
		if slices.Contains(Blind, k) {
			want = 0
		}
		if wb[k] != want || wt[k] != weights[k] {
			t.Errorf("%v: weight %d blind, %d told; want %d and %d", k, wb[k], wt[k], want, weights[k])
		}
	}
	cfg := Config{Recipe: blindProgram.Name, Seed: 1, Duration: time.Second, Speakers: 2, Election: "sequential", Policy: atMostOne,
		Servers: 1, Speaker: "/bin/sh", Dir: t.TempDir(), Cmd: "sh {servers}", Kinds: []Kind{Kill, DeletePath}}
	err := Validate(cfg)
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "--faults delete-path") || !strings.Contains(err.Error(), "{path}") {
		t.Errorf("--faults delete-path for a program not told its path: %v, want an ErrConfig naming --faults and why", err)
	}
	cfg.Recipe = toldProgram.Name
	if err := Validate(cfg); err != nil {
		t.Errorf("--faults delete-path for a program told its path: %v", err)
	}
}

// --cmd is a program of the user's: a recipe of ours refuses it rather
// than run ours and ignore it.
func TestACmdNeedsARecipeThatRunsOne(t *testing.T) {
	cfg := Config{Recipe: election.Name, Seed: 1, Duration: time.Second, Speakers: 2, Election: "sequential",
		Policy: atMostOne, Servers: 1, Speaker: "/bin/sh", Dir: t.TempDir(), Cmd: "sh {servers}"}
	if err := Validate(cfg); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "--cmd") {
		t.Errorf("--cmd with --recipe election: %v, want an ErrConfig naming --cmd", err)
	}
}

// A program's znodes, named as it likes, are in line by the sequence
// number ZooKeeper appended: kazoo's, go-zookeeper's zk.Lock's and ours
// side by side, and a name without one last.
func TestZnodesOfAnyNamingAreInLineBySequence(t *testing.T) {
	children := []string{"leader", "_c_0123456789abcdef0123456789abcdef-lock-0000000007",
		"9f1c2d__lock__0000000003", "n_0000000010", "a-0000000003", "x-12"}
	want := []string{"9f1c2d__lock__0000000003", "a-0000000003", "_c_0123456789abcdef0123456789abcdef-lock-0000000007",
		"n_0000000010", "leader", "x-12"}
	if got := bySequence(children); !slices.Equal(got, want) {
		t.Errorf("bySequence:\n got %q\nwant %q", got, want)
	}
	op := &operator{anyNames: true}
	if got := op.ours(children); !slices.Equal(got, want) {
		t.Errorf("an operator of a program's znodes lists %q, want %q", got, want)
	}
}

// The report names the program under test, and says what it left out and
// why, rather than report none of it found.
func TestTheReportNamesTheProgramAndWhatItLeftOut(t *testing.T) {
	rep, err := Check(Input{Recipe: blindProgram.Name, Cmd: "python3 s.py {servers} {name} {out}", Blind: "it is not told {path}",
		Session: 2 * time.Second, Tick: 200 * time.Millisecond, Interval: time.Second, Policy: atMostOne, Fence: true, Start: t0, End: t0.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rep.Write(&b)
	for _, want := range []string{"program under test: python3 s.py {servers} {name} {out}\n",
		"left out: delete-leader, delete-path, lost-create, and the leak check (it is not told {path})\n",
		"leaks: not looked for"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "leaks: none") {
		t.Errorf("the report says no leaks where it looked for none:\n%s", b.String())
	}
}
