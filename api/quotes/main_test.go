package quotes_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const base = "/api/v2/quotes"

func newEnv(t *testing.T) *apitest.Env {
	return apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.V2RateLimit = 100_000 }))
}

func want(t *testing.T, res *apitest.Response, status int, code string) {
	t.Helper()
	if res.Status != status || res.ErrorCode() != code {
		t.Fatalf("want %d %q, got %d: %s", status, code, res.Status, res.Body)
	}
}

func ok(t *testing.T, res *apitest.Response, status int) map[string]any {
	t.Helper()
	if res.Status != status {
		t.Fatalf("want %d, got %d: %s", status, res.Status, res.Body)
	}
	return res.Data()
}

func body(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func line(kv ...any) map[string]any { return body(kv...) }

func errDetails(res *apitest.Response) map[string]any {
	e, _ := res.JSON()["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return d
}

func fields(res *apitest.Response) string {
	fs, _ := errDetails(res)["fields"].([]any)
	var out []string
	for _, f := range fs {
		m, _ := f.(map[string]any)
		out = append(out, fmt.Sprint(m["field"]))
	}
	return strings.Join(out, ",")
}

func lines(d map[string]any) []map[string]any {
	raw, _ := d["line_items"].([]any)
	out := make([]map[string]any, len(raw))
	for i, x := range raw {
		out[i], _ = x.(map[string]any)
	}
	return out
}
