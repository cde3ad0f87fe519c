package config

import (
	"fmt"

	"zkspeaker/internal/reason"
	"zkspeaker/recoverable"
)

// DefaultBase is the znode under which keys live: key "colour" is the znode
// /config/colour. The chapter used one znode, /config, for its one key.
const DefaultBase = "/config"

// MaxKeyLen is the longest key, in bytes: a file name's limit, and far
// below what ZooKeeper allows, so that a key reads well in a log line.
const MaxKeyLen = 255

// MaxValueLen is the largest value, in bytes. ZooKeeper refuses a request
// larger than its jute.maxbuffer (1 MiB less one byte by default), and the
// request carries the path too.
const MaxValueLen = 1000 * 1000

// ValidateKey checks that key names one znode under the base path: 1 to
// MaxKeyLen letters, digits, '.', '_' or '-', and neither "." nor "..".
// Keys are checked before any request, so that a bad one creates nothing.
// A slash is refused: "a/b" would need a parent znode that a later delete of
// "a" would leave behind, which is more than this service promises.
func ValidateKey(key string) error {
	switch {
	case key == "":
		return reason.New(ErrInvalidKey, "key", "it is empty")
	case len(key) > MaxKeyLen:
		return reason.New(ErrInvalidKey, "key", "it is %d bytes long, at most %d allowed", len(key), MaxKeyLen)
	case key == "." || key == "..":
		return reason.New(ErrInvalidKey, "key", ". and .. are not znode names")
	}
	for _, r := range key {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			return reason.New(ErrInvalidKey, "key", "%q is not allowed; use letters, digits, '.', '_' and '-'", r)
		}
	}
	return nil
}

// ValidateValue checks that ZooKeeper will take value in one znode.
func ValidateValue(value string) error {
	if len(value) > MaxValueLen {
		return reason.New(ErrValueTooLarge, "value", "it is %d bytes, at most %d fit in a znode", len(value), MaxValueLen)
	}
	return nil
}

// ValidateBase checks a base path by recoverable.ValidatePath. The root
// is refused with a word on where keys go instead.
func ValidateBase(p string) error {
	err := recoverable.ValidatePath("path", p)
	switch {
	case err == nil:
		return nil
	case p == "/":
		return reason.New(ErrInvalidPath, "path", "keys cannot live in the root itself; use a znode below it, such as %s", DefaultBase)
	}
	return fmt.Errorf("%w: %w", ErrInvalidPath, err)
}
