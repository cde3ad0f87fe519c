// Command speaker runs one candidate of the Speaker demo: it joins a leader
// election in ZooKeeper and appends lines to out/out.txt while it leads.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "speaker: not built yet")
	os.Exit(1)
}
