// Package doctest holds the test helpers the quote and invoice API tests
// share: an environment without the v2 rate limit in the way, status
// assertions, body builders and readers of validation errors and line items.
package doctest

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/pgtest"
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

// ReadIsOneSnapshot checks that a GET of a document of base (created from
// create) reads the document and its lines (in linesTable) in one
// snapshot: a PATCH that replaces the lines, and with them the total,
// commits between the read of the document and that of its lines, and the
// GET answers the total and the lines from before it, not the old total
// with the new lines.
func ReadIsOneSnapshot(t *testing.T, base, linesTable string, create map[string]any) {
	env := NewEnv(t)
	a := env.NewOrg("A")
	create["line_items"] = []any{Line("description", "Mixer", "quantity", 1, "unit_price", 1)}
	id := OK(t, a.Post(base, create), 201)["id"].(string)
	var armed atomic.Bool
	*env.Svc.DB = *env.Svc.DB.WithQueryHook(pgtest.BeforeQuery(func(ctx context.Context, e *bun.QueryEvent) context.Context {
		if !strings.Contains(e.Query, `FROM "`+linesTable+`"`) || !armed.CompareAndSwap(true, false) {
			return ctx
		}
		OK(t, a.Patch(base+"/"+id, Body("line_items", []any{
			Line("description", "Mixer", "quantity", 2, "unit_price", 1000),
			Line("description", "Stage box", "quantity", 1, "unit_price", 1000),
		})), 200)
		return ctx
	}))
	armed.Store(true)
	d := OK(t, a.Get(base+"/"+id), 200)
	if armed.Load() {
		t.Fatalf("the read of the lines was not seen: no statement names %q", linesTable)
	}
	if ls := Lines(d); len(ls) != 1 || d["total_amount"] != 1.0 {
		t.Fatalf("total %v with %d lines %v: the document and its lines were read in two snapshots", d["total_amount"], len(ls), ls)
	}
	if d := OK(t, a.Get(base+"/"+id), 200); len(Lines(d)) != 2 || d["total_amount"] != 3000.0 {
		t.Fatalf("after the PATCH: total %v, lines %v", d["total_amount"], Lines(d))
	}
}
