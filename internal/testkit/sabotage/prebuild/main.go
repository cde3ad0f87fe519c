// Command prebuild builds every build of sabotage.Catalog (the chaos
// soaks' broken builds and test programs) into DIR, make test's
// bin/test-commands/sabotage, where sabotage.Built finds them. make test
// runs it at a low CPU priority (nice 10) beside the first packages' tests
// (testrun -prepare), and the soaks start once it has ended.
//
// Usage:
//
//	prebuild DIR
package main

import (
	"fmt"
	"os"
	"time"

	"zkspeaker/internal/testkit/sabotage"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: prebuild DIR")
		os.Exit(2)
	}
	start := time.Now()
	if err := sabotage.PrebuildAll(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "prebuild:", err)
		os.Exit(1)
	}
	fmt.Printf("prebuild: the soaks' %d builds in %.0f s\n", len(sabotage.Catalog), time.Since(start).Seconds())
}
