package config_test

import (
	"errors"
	"strings"
	"testing"

	"zkspeaker/internal/reason"
	"zkspeaker/recipes/config"
)

func TestValidateKey(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"colour", "a", "A-Z_0.9", "..a", strings.Repeat("k", config.MaxKeyLen)} {
		if err := config.ValidateKey(key); err != nil {
			t.Errorf("ValidateKey(%q) = %v, want nil", key, err)
		}
	}
	for key, why := range map[string]string{
		"":                                      "empty",
		".":                                     "not znode names",
		"..":                                    "not znode names",
		"a/b":                                   `'/' is not allowed`,
		"a b":                                   `' ' is not allowed`,
		"a\nb":                                  `'\n' is not allowed`,
		"café":                                  `'é' is not allowed`,
		strings.Repeat("k", config.MaxKeyLen+1): "256 bytes long",
	} {
		err := config.ValidateKey(key)
		if !errors.Is(err, config.ErrInvalidKey) || !strings.Contains(err.Error(), why) {
			t.Errorf("ValidateKey(%q) = %v, want ErrInvalidKey saying %q", key, err, why)
		}
	}
}

func TestValidateBase(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"/config", "/a/b/c", "/zookeeper2"} {
		if err := config.ValidateBase(p); err != nil {
			t.Errorf("ValidateBase(%q) = %v, want nil", p, err)
		}
	}
	for p, why := range map[string]string{
		"config":         "not absolute",
		"":               "not absolute",
		"/":              "root",
		"/config/":       "ends in /",
		"/a//b":          "empty",
		"/a/./b":         ". or ..",
		"/a/..":          ". or ..",
		"/zookeeper":     "reserves",
		"/zookeeper/cfg": "reserves",
		"/a\x00b":        "control character",
	} {
		err := config.ValidateBase(p)
		if !errors.Is(err, config.ErrInvalidPath) || !strings.Contains(err.Error(), why) || !strings.Contains(reason.Of(err), why) {
			t.Errorf("ValidateBase(%q) = %v, want ErrInvalidPath saying %q", p, err, why)
		}
	}
}

func TestValidateValue(t *testing.T) {
	t.Parallel()
	if err := config.ValidateValue(strings.Repeat("v", config.MaxValueLen)); err != nil {
		t.Errorf("a value of MaxValueLen bytes: %v, want nil", err)
	}
	if err := config.ValidateValue(strings.Repeat("v", config.MaxValueLen+1)); !errors.Is(err, config.ErrValueTooLarge) {
		t.Errorf("a value of MaxValueLen+1 bytes: %v, want ErrValueTooLarge", err)
	}
}

// New checks its base path before it could create anything with it.
func TestNewRefusesABadBase(t *testing.T) {
	t.Parallel()
	if _, err := config.New(nil, config.WithBase("relative")); !errors.Is(err, config.ErrInvalidPath) {
		t.Fatalf("New with base \"relative\" = %v, want ErrInvalidPath", err)
	}
}
