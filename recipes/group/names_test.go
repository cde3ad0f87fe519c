package group_test

import (
	"errors"
	"strings"
	"testing"

	"zkspeaker/recipes/group"
)

func TestParseName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, path, why string }{
		{name: "zoo", path: "/zoo"},
		{name: "/zoo", path: "/zoo"},
		{name: "apps/zoo", path: "/apps/zoo"},
		{name: "/apps/zoo", path: "/apps/zoo"},
		{name: "zoo keeper", path: "/zoo keeper"},
		{name: "", why: "empty"},
		{name: "/", why: "root"},
		{name: "zoo/", why: "ends in /"},
		{name: "a//b", why: "empty component"},
		{name: "a/./b", why: ". or .."},
		{name: "..", why: ". or .."},
		{name: "zookeeper", why: "/zookeeper"},
		{name: "/zookeeper/quota", why: "/zookeeper"},
		{name: "zo\no", why: "control character"},
		{name: "zo\x7fo", why: "control character"},
		{name: "zo\uf000o", why: "U+F000"},
		{name: "zo\xffo", why: "UTF-8"},
	} {
		path, err := group.ParseName(tc.name)
		if tc.why == "" {
			if err != nil || path != tc.path {
				t.Errorf("ParseName(%q) = %q, %v; want %q", tc.name, path, err, tc.path)
			}
			continue
		}
		if !errors.Is(err, group.ErrInvalidName) || !strings.Contains(err.Error(), tc.why) || !strings.Contains(err.Error(), "group") {
			t.Errorf("ParseName(%q) = %q, %v; want ErrInvalidName saying %q", tc.name, path, err, tc.why)
		}
	}
}

func TestValidateMember(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, why string }{
		{name: "duck"},
		{name: "duck-1.example.com:8080"},
		{name: "zookeeper"}, // reserved only at the root
		{name: "", why: "empty"},
		{name: "du/ck", why: "contains /"},
		{name: ".", why: ". or .."},
		{name: "du\tck", why: "control character"},
	} {
		err := group.ValidateMember(tc.name)
		if tc.why == "" {
			if err != nil {
				t.Errorf("ValidateMember(%q) = %v, want nil", tc.name, err)
			}
			continue
		}
		if !errors.Is(err, group.ErrInvalidName) || !strings.Contains(err.Error(), tc.why) || !strings.Contains(err.Error(), "member") {
			t.Errorf("ValidateMember(%q) = %v; want ErrInvalidName saying %q", tc.name, err, tc.why)
		}
	}
}
