//go:build race

package main_test

// raceFlags builds the command with the race detector when its tests run
// with it, so that `go test -race` checks the command's goroutines too.
var raceFlags = []string{"-race"}
