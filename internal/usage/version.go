package usage

import (
	"runtime/debug"
)

// Version says which build of the program this is: its module's version,
// the git revision it was built from when Go recorded one (go build does
// in a git checkout, unless -buildvcs=false), and the Go release.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(built without module information)"
	}
	return versionOf(info)
}

// versionOf is Version for the build information info.
func versionOf(info *debug.BuildInfo) string {
	vcs := map[string]string{}
	for _, s := range info.Settings {
		vcs[s.Key] = s.Value
	}
	v := info.Main.Version // "(devel)" for a build from a checkout
	if v == "" {
		v = "(devel)"
	}
	rev := vcs["vcs.revision"]
	if rev == "" {
		v += ", no git revision recorded"
	} else {
		v += ", git " + rev[:min(len(rev), 12)]
		if t := vcs["vcs.time"]; t != "" {
			v += " of " + t
		}
		if vcs["vcs.modified"] == "true" {
			v += " with uncommitted changes"
		}
	}
	return v + ", " + info.GoVersion
}
