package crud_test

import (
	"context"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// warnings is the harness's Warn hook: a name starting with "warn" gets a
// check, which warns about "warn-me" and fails on "warn-fails"; any other
// name none.
func warnings(_ context.Context, f fields) crud.WarnCheck[thing] {
	if !strings.HasPrefix(f.name, "warn") {
		return nil
	}
	return func(_ context.Context, db bun.IDB, _ tenancy.OrganizationID, v *thing) ([]rest.Warning, error) {
		if !database.IsTx(db) {
			return nil, errs.InvalidField("name", "checked outside the update's transaction")
		}
		switch v.Name {
		case "warn-me":
			return []rest.Warning{{Code: "test_warning", Details: map[string]string{"name": v.Name}}}, nil
		case "warn-fails":
			return nil, errs.InvalidField("name", "is refused by the warning's check")
		}
		return nil, nil
	}
}

// TestWarn: a PATCH the Warn hook has a check for is written and checked in
// one transaction, and a failed check leaves nothing written; a PATCH it
// has no check for runs without a transaction of its own.
func TestWarn(t *testing.T) {
	h := newHarness(t)
	a := h.f.Insert(t, "clients", h.f.A, map[string]any{"name": "alpha"})
	tests := []struct {
		name, body string
		status     int
		code       string
		inTx       bool
		warning    string
		stored     string
	}{
		{"no check: no transaction", `{"name":"plain"}`, 200, "", false, "", "plain"},
		{"a check without a warning", `{"name":"warn-not"}`, 200, "", true, "", "warn-not"},
		{"a check with a warning", `{"name":"warn-me"}`, 200, "", true, "test_warning", "warn-me"},
		{"a failed check writes nothing", `{"name":"warn-fails"}`, 422, "validation_error", true, "", "warn-me"},
		{"no check after a failed one", `{"email":"a@b.c"}`, 200, "", false, "", "warn-me"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.updateInTx = nil
			r := h.do(t, "", "PATCH", "/things/"+a.String(), tt.body)
			if r.status != tt.status || r.code() != tt.code {
				t.Fatalf("%d %v, want %d %q", r.status, r.body, tt.status, tt.code)
			}
			if len(h.updateInTx) != 1 || h.updateInTx[0] != tt.inTx {
				t.Fatalf("updates in a transaction: %v, want [%v]", h.updateInTx, tt.inTx)
			}
			var code string
			if w, ok := r.body["warnings"].([]any); ok && len(w) == 1 {
				code, _ = w[0].(map[string]any)["code"].(string)
			}
			if code != tt.warning {
				t.Fatalf("warnings %v, want %q", r.body["warnings"], tt.warning)
			}
			if got := h.names(t, h.f.A); len(got) != 1 || got[0] != tt.stored {
				t.Fatalf("A holds %v, want [%s]", got, tt.stored)
			}
		})
	}
}
