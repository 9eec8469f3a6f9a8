package redistest

import (
	"os"
	"testing"
)

// TestMain stops the cluster SharedClusterURL started, when it started one.
func TestMain(m *testing.M) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}
