package recoverable

import "testing"

func TestSessionStateStrings(t *testing.T) {
	t.Parallel()
	for s, want := range map[SessionState]string{
		StateConnecting: "connecting", StateConnected: "connected", StateDisconnected: "disconnected",
		StateExpired: "expired", StateAuthFailed: "auth-failed", StateClosed: "closed", SessionState(99): "unknown",
	} {
		if got := s.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", s, got, want)
		}
	}
}
