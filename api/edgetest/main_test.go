package edgetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/redistest"
)

// binary is the eventapi executable built for the multi-process tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "edgetest-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "eventapi")
	build := exec.Command("go", "build", "-o", binary, "github.com/eventapi/eventapi/cmd/eventapi")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "edgetest: building cmd/eventapi failed:", err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	pgtest.Cleanup()
	redistest.Cleanup()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}
