package prebuilt

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCommandsAreFoundOnlyWhenAllAreThere(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "race"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"speaker", "zklock", "race/zkconfig"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(Env, "")
	if _, ok := Command("speaker", false); ok {
		t.Fatal("found a command with no " + Env)
	}
	t.Setenv(Env, dir)
	if p, ok := Command("speaker", false); !ok || p != filepath.Join(dir, "speaker") {
		t.Fatalf("speaker: %q, %v", p, ok)
	}
	if p, ok := Command("zkconfig", true); !ok || p != filepath.Join(dir, "race", "zkconfig") {
		t.Fatalf("race zkconfig: %q, %v", p, ok)
	}
	if _, ok := Command("zkconfig", false); ok {
		t.Fatal("found a plain zkconfig that was not built")
	}
	if d, ok := Commands("speaker", "zklock"); !ok || d != dir {
		t.Fatalf("speaker and zklock: %q, %v", d, ok)
	}
	if _, ok := Commands("speaker", "zkgroup"); ok {
		t.Fatal("Commands said yes with zkgroup missing")
	}
	if _, ok := Command("race", false); ok {
		t.Fatal("a folder passed for a command")
	}
}
