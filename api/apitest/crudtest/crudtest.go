// Package crudtest holds the table-driven HTTP checks every v2 resource's
// tests share: the create → get → list → patch → get lifecycle, PATCH
// semantics (read-only fields, null, empty body, foreign ids), full cursor
// walks, and bad-input tables that also prove nothing was written.
package crudtest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
)

// Snapshot is what a write to a table would change: its row count and its
// latest updated_at, within one organization.
type Snapshot struct {
	Rows    int
	Updated time.Time
}

// Take reads the snapshot of table for org straight from the database.
func Take(t testing.TB, env *apitest.Env, table string, org uuid.UUID) Snapshot {
	t.Helper()
	var s Snapshot
	var updated *time.Time
	err := env.Svc.DB.NewSelect().Table(table).
		ColumnExpr("count(*)").ColumnExpr("max(updated_at)").
		Where("organization_id = ?", org).Scan(context.Background(), &s.Rows, &updated)
	if err != nil {
		t.Fatalf("snapshot %s: %v", table, err)
	}
	if updated != nil {
		s.Updated = *updated
	}
	return s
}

// Same reports whether two values encode to the same JSON (so 12 and 12.0,
// or a map and its decoded form, compare equal).
func Same(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return false
	}
	var va, vb any
	if json.Unmarshal(ja, &va) != nil || json.Unmarshal(jb, &vb) != nil {
		return false
	}
	na, _ := json.Marshal(va)
	nb, _ := json.Marshal(vb)
	return string(na) == string(nb)
}

// Fields returns details.fields[*].field of a validation_error body.
func Fields(r *apitest.Response) []string {
	var out []string
	for _, f := range fieldIssues(r) {
		out = append(out, f[0])
	}
	return out
}

// Issues returns the issue of each field of a validation_error body.
func Issues(r *apitest.Response) map[string]string {
	out := map[string]string{}
	for _, f := range fieldIssues(r) {
		out[f[0]] = f[1]
	}
	return out
}

// fieldIssues returns details.fields[*] as (field, issue) pairs.
func fieldIssues(r *apitest.Response) [][2]string {
	e, _ := r.JSON()["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	list, _ := d["fields"].([]any)
	var out [][2]string
	for _, f := range list {
		m, _ := f.(map[string]any)
		field, _ := m["field"].(string)
		issue, _ := m["issue"].(string)
		out = append(out, [2]string{field, issue})
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
