package znodemonitor

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// A waiting candidate owns no znode, so nothing in the tree says who it is.
// It leaves its name where the servers' watch lists (the four-letter word
// wchc) show it instead: an exists watch on NameTag(path, name), a child of
// the election znode. That znode never exists, since an ephemeral znode has
// no children, so the watch never fires and stays until the session ends.
// It costs one read per session, after the candidate's own watch is set,
// and no write: the race for the znode is not slowed.

// NameTag returns the path whose exists watch names a candidate called
// name in the election at path, and false for a name that no path can hold
// ("." and "..").
func NameTag(path, name string) (string, bool) {
	esc := url.PathEscape(name) // a "/" in a name becomes %2F
	if esc == "" || esc == "." || esc == ".." {
		return "", false
	}
	return path + "/" + esc, true
}

// TaggedName returns the candidate's name if watched is a NameTag of the
// election at path.
func TaggedName(path, watched string) (string, bool) {
	esc, ok := strings.CutPrefix(watched, path+"/")
	if !ok || strings.Contains(esc, "/") {
		return "", false
	}
	name, err := url.PathUnescape(esc)
	return name, err == nil
}

// tag leaves the name tag on the current session, once per session.
func (s *singleFile) tag(ctx context.Context) {
	session := s.zk.SessionID()
	if s.tagged == session {
		return
	}
	p, ok := NameTag(s.path, string(s.data))
	if !ok {
		s.tagged = session // no tag for this name; do not try again
		return
	}
	if _, _, _, err := s.zk.ExistsW(ctx, p); err != nil {
		// Only status misses it; the election does not need it.
		s.log.Debug("could not leave our name for speaker status", "path", p, "error", err)
		return
	}
	s.tagged = session
	s.log.Debug("left our name for speaker status", "path", p, "session", fmt.Sprintf("0x%x", session))
}
