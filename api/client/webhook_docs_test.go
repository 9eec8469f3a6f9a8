package client_test

import (
	"os"
	"regexp"
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
