package usage

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionNamesTheRevisionWhenGoRecordedOne(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "8037621232c758f28f96e4651d734d4ae62ea80a"},
		{Key: "vcs.time", Value: "2026-11-23T14:39:05Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	if got, want := versionOf(info), "(devel), git 8037621232c7 of 2026-11-23T14:39:05Z with uncommitted changes, go1.26.8"; got != want {
		t.Errorf("with a revision: %q, want %q", got, want)
	}
	info.Settings = nil
	if got := versionOf(info); !strings.Contains(got, "no git revision recorded") || !strings.HasSuffix(got, "go1.26.8") {
		t.Errorf("without a revision: %q", got)
	}
}
