package queue

import (
	"testing"

	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
)

// TestMain registers the recipe, and fails the package when its tests
// leave a goroutine running.
func TestMain(m *testing.M) { chaostest.Main(m, Recipe) }
