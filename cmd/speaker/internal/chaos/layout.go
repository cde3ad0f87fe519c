package chaos

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Layout is what the soak knows of where a program it did not write keeps
// its znodes (Recipe.Layout). Our own programs' layout the operator knows:
// this project's candidate names, or the members of Recipe.Members.
type Layout struct {
	// AnyNames says the processes were told Path and name their znodes
	// under it as they like: the one with the lowest sequence number is
	// the leader's, as in every sequential election on ZooKeeper, and
	// every one left after they all exited is a leak.
	AnyNames bool
	// Unknown says why the soak does not know where their znodes are, ""
	// when it does. Then a fault the program cannot be told about is not
	// drawn (Blind), and no leak is looked for: the report says so rather
	// than count against the program what it could not know.
	Unknown string
}

// Blind are the faults a soak cannot aim at a program whose znodes it
// cannot find: the operator's deletes need the znode, and a lost create
// the path its create goes under.
var Blind = []Kind{DeleteLeader, DeletePath, LostCreate}

// layout is the Config's recipe's Layout; the zero Layout for our own.
func (c *Config) layout() Layout {
	if l := c.recipe().Layout; l != nil {
		return l(c)
	}
	return Layout{}
}

// checkBlind refuses --faults that name a fault the soak cannot aim.
func (c *Config) checkBlind() error {
	why := c.layout().Unknown
	if why == "" {
		return nil
	}
	for _, k := range c.Kinds {
		if slices.Contains(Blind, k) {
			return fmt.Errorf("%w: --faults %s cannot be aimed: %s", ErrConfig, c.words().kindName(k), why)
		}
	}
	return nil
}

// blindNote is the report's line on the faults left out, "" when none is.
func blindNote(why string) string {
	if why == "" {
		return ""
	}
	names := make([]string, len(Blind))
	for i, k := range Blind {
		names[i] = k.String()
	}
	return fmt.Sprintf("left out: %s, and the leak check (%s)", strings.Join(names, ", "), why)
}

// bySequence orders znodes of any naming as an election reads them: by
// the sequence number ZooKeeper appends (ten digits at the end), lowest
// first, and those without one after them, by name.
func bySequence(children []string) []string {
	out := slices.Clone(children)
	slices.SortFunc(out, func(a, b string) int {
		sa, oka := sequenceOf(a)
		sb, okb := sequenceOf(b)
		switch {
		case oka && okb:
			return cmp.Or(cmp.Compare(sa, sb), strings.Compare(a, b))
		case oka:
			return -1
		case okb:
			return 1
		}
		return strings.Compare(a, b)
	})
	return out
}

// sequenceOf reads the ten digits a sequential create appends to a name.
func sequenceOf(name string) (int64, bool) {
	const digits = 10
	if len(name) < digits {
		return 0, false
	}
	n, err := strconv.ParseInt(name[len(name)-digits:], 10, 64)
	return n, err == nil && n >= 0 && !strings.ContainsAny(name[len(name)-digits:], "+-")
}
