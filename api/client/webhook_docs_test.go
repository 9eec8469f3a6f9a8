package client_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestWebhooksDocPinsTheLibrary: docs/webhooks.md's `go get` of the
// Standard Webhooks library names the version go.mod requires, the one
// the SDK's receiver is tested with; without a version, go get takes the
// newest release.
func TestWebhooksDocPinsTheLibrary(t *testing.T) {
	const module = `github\.com/standard-webhooks/standard-webhooks/libraries`
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	req := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + module + `\s+(\S+)`).FindSubmatch(mod)
	if req == nil {
		t.Fatal("go.mod requires no " + module)
	}
	doc, err := os.ReadFile("../../docs/webhooks.md")
	if err != nil {
		t.Fatal(err)
	}
	gets := regexp.MustCompile(`go get\s+`+module+`(@\S+?)?[`+"`"+`\s]`).FindAllSubmatch(doc, -1)
	if len(gets) == 0 {
		t.Fatal("docs/webhooks.md has no go get of " + module)
	}
	for _, g := range gets {
		if string(g[1]) != "@"+string(req[1]) {
			t.Errorf("docs/webhooks.md: %q; want the version go.mod requires, @%s", g[0], req[1])
		}
	}
}

// TestWebhooksDocExampleBuilds: the receiver of docs/webhooks.md,
// "Verifying in Go", is a whole program a reader can copy and build. It
// is built here as its own module requiring the library at go.mod's
// version, offline, from the module cache the service's build filled.
func TestWebhooksDocExampleBuilds(t *testing.T) {
	doc, err := os.ReadFile("../../docs/webhooks.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, found := strings.Cut(string(doc), "### Verifying in Go\n")
	_, block, ok := strings.Cut(section, "```go\n")
	code, _, closed := strings.Cut(block, "```\n")
	if !found || !ok || !closed {
		t.Fatal(`docs/webhooks.md has no go block under "Verifying in Go"`)
	}
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	version := regexp.MustCompile(`(?m)github\.com/standard-webhooks/standard-webhooks/libraries\s+(\S+)`).FindSubmatch(mod)
	if version == nil {
		t.Fatal("go.mod requires no Standard Webhooks library")
	}
	sum, err := os.ReadFile("../../go.sum")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"main.go": code,
		"go.mod":  "module docexample\n\ngo 1.22\n\nrequire github.com/standard-webhooks/standard-webhooks/libraries " + string(version[1]) + "\n",
		"go.sum":  string(sum),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "receiver"), ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the docs' receiver does not build: %v\n%s\n%s", err, out, code)
	}
}
