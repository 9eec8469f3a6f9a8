// Package doctest holds the test helpers the quote and invoice API tests
// share: an environment without the v2 rate limit in the way, status
// assertions, body builders and readers of validation errors and line items.
package doctest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/config"
)

// NewEnv starts a test server with a v2 rate limit tests do not reach.
func NewEnv(t *testing.T) *apitest.Env {
	return apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.V2RateLimit = 100_000 }))
}

// Want fails t unless res has status and error code.
func Want(t *testing.T, res *apitest.Response, status int, code string) {
	t.Helper()
	if res.Status != status || res.ErrorCode() != code {
		t.Fatalf("want %d %q, got %d: %s", status, code, res.Status, res.Body)
	}
}

// OK fails t unless res has status, and returns its data.
func OK(t *testing.T, res *apitest.Response, status int) map[string]any {
	t.Helper()
	if res.Status != status {
		t.Fatalf("want %d, got %d: %s", status, res.Status, res.Body)
	}
	return res.Data()
}

// Body builds a JSON object from key, value pairs.
func Body(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// Line builds one line item from key, value pairs.
func Line(kv ...any) map[string]any { return Body(kv...) }

// ErrDetails returns the details of res's error.
func ErrDetails(res *apitest.Response) map[string]any {
	e, _ := res.JSON()["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return d
}

// Fields lists the fields of res's validation error, comma-separated.
func Fields(res *apitest.Response) string {
	fs, _ := ErrDetails(res)["fields"].([]any)
	var out []string
	for _, f := range fs {
		m, _ := f.(map[string]any)
		out = append(out, fmt.Sprint(m["field"]))
	}
	return strings.Join(out, ",")
}

// Lines returns the line items of document d.
func Lines(d map[string]any) []map[string]any {
	raw, _ := d["line_items"].([]any)
	out := make([]map[string]any, len(raw))
	for i, x := range raw {
		out[i], _ = x.(map[string]any)
	}
	return out
}
