package election

import "errors"

// ErrInvalid is wrapped by every error about a bad option value.
var ErrInvalid = errors.New("election: invalid option")

// ErrSessionChanged means the session was replaced while a znode was being
// created, so the new znode cannot be trusted to be ours.
var ErrSessionChanged = errors.New("election: session changed")
