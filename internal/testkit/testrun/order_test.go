package main

import (
	"regexp"
	"slices"
	"testing"
)

func TestFirstOfStartsTheLongestPackagesFirst(t *testing.T) {
	t.Parallel()
	pkgs := []string{"m/a", "m/cmd/speaker", "m/b", "m/nodemonitor", "m/internal/chaos"}
	together, alone := split(pkgs, regexp.MustCompile(`/internal/chaos$`))
	got := firstOf(together, []*regexp.Regexp{regexp.MustCompile(`/nodemonitor$`), regexp.MustCompile(`/cmd/speaker$`)})
	if want := []string{"m/nodemonitor", "m/cmd/speaker", "m/a", "m/b"}; !slices.Equal(got, want) {
		t.Errorf("firstOf = %v, want %v", got, want)
	}
	if want := []string{"m/internal/chaos"}; !slices.Equal(alone, want) {
		t.Errorf("alone = %v, want %v", alone, want)
	}
	if got := firstOf(pkgs, nil); !slices.Equal(got, pkgs) {
		t.Errorf("firstOf with no expression = %v, want the order unchanged", got)
	}
}
