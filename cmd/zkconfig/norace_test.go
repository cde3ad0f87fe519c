//go:build !race

package main_test

// raceFlags is empty without -race (see race_test.go).
var raceFlags []string
