// Package reason keeps an error's kind and its reason apart. The kind is a
// package's sentinel (config.ErrInvalidKey, group.ErrMemberTaken), which
// callers test with errors.Is; the reason is the words after it, which a
// command prints under its own name for the argument ("--path: …",
// "NAME …"), without cutting the sentinel's words off a message.
package reason

import (
	"errors"
	"fmt"
)

// Error is an error of kind Kind, about the argument Field when there is
// one ("key", "path", "name"…), for the reason Text. Cause, when set, is
// the error behind it (a file system's, ZooKeeper's).
type Error struct {
	Kind  error
	Field string
	Text  string
	Cause error
}

// Error reads as the kind, then the reason: "config: invalid key: it is
// empty".
func (e *Error) Error() string { return e.Kind.Error() + ": " + e.Text }

// Unwrap gives errors.Is and errors.As the kind and the cause.
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Kind, e.Cause}
	}
	return []error{e.Kind}
}

// New returns an Error of kind about field, its reason formatted.
func New(kind error, field, format string, a ...any) error {
	return &Error{Kind: kind, Field: field, Text: fmt.Sprintf(format, a...)}
}

// Because returns an Error of kind about field, whose reason is cause's
// message, with cause kept for errors.Is.
func Because(kind error, field string, cause error) error {
	return &Error{Kind: kind, Field: field, Text: cause.Error(), Cause: cause}
}

// Of is what err says of its argument, without the kind's words before
// it: the reason it carries, or, when it carries none, all of it.
func Of(err error) string {
	if text, ok := Text(err); ok {
		return text
	}
	return err.Error()
}

// Text returns the reason err carries, and false when it carries none.
// An error of a lower layer that cannot use this package's Error (such as
// recoverable's PathError) carries one by a Reason method.
func Text(err error) (string, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Text, true
	}
	var r interface{ Reason() string }
	if errors.As(err, &r) {
		return r.Reason(), true
	}
	return "", false
}
