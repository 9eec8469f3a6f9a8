package edge_test

import (
	"os"
	"testing"

	"github.com/eventapi/eventapi/platform/redistest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	redistest.Cleanup()
	os.Exit(code)
}
