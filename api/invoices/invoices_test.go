package invoices_test

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

func TestInvoiceLifecycle(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	cl, ev := rows.Client("Harbor"), rows.Event("Festival")
	eq := rows.Equipment("Speaker", nil, nil)

	inv := ok(t, a.Post(base, body("due_date", "2026-06-30", "issue_date", "2026-06-01", "client_id", cl.String(), "event_id", ev.String(),
		"line_items", []any{
			line("equipment_id", eq.String(), "quantity", 3, "unit_price", 19.99),
			line("description", "Labour", "quantity", 7, "unit_price", 0.07),
		})), 201)
	id := inv["id"].(string)
	for k, v := range map[string]any{"invoice_number": "INV-000001", "status": "draft", "title": "", "total_amount": 60.46,
		"due_date": "2026-06-30", "issue_date": "2026-06-01", "client_id": cl.String(), "demo": false} {
		if inv[k] != v {
			t.Errorf("%s = %v, want %v", k, inv[k], v)
		}
	}
	if ls := lines(inv); len(ls) != 2 || ls[0]["line_total"] != 59.97 || ls[1]["line_total"] != 0.49 {
		t.Errorf("lines = %v", inv["line_items"])
	}
	g := ok(t, a.Get(base+"/"+id+"?expand=client,event"), 200)
	if c, _ := g["client"].(map[string]any); c["name"] != "Harbor" || len(lines(g)) != 2 {
		t.Errorf("detail = %v", g)
	}
	if e, _ := g["event"].(map[string]any); e["name"] != "Festival" {
		t.Errorf("event = %v", g["event"])
	}
	p := ok(t, a.Patch(base+"/"+id, body("status", "paid", "title", "June hire", "issue_date", nil, "due_date", "2026-07-15")), 200)
	if p["status"] != "paid" || p["title"] != "June hire" || p["issue_date"] != nil || p["due_date"] != "2026-07-15" || p["total_amount"] != 60.46 {
		t.Errorf("patch = %v", p)
	}
	p = ok(t, a.Patch(base+"/"+id, body("line_items", []any{line("description", "Settlement", "quantity", 1, "unit_price", 50)})), 200)
	if p["total_amount"] != 50.0 || len(lines(p)) != 1 {
		t.Errorf("replace = %v", p)
	}
	if l := a.Get(base + "?status=paid").List(); len(l) != 1 || l[0]["line_items"] != nil {
		t.Errorf("list = %v", l)
	}
	if n := len(a.Get(base + "?status=void").List()); n != 0 {
		t.Errorf("status=void: %d", n)
	}
	// Invoices never create pick lists.
	if n := rows.Count("pick_lists"); n != 0 {
		t.Errorf("%d pick lists", n)
	}
}

func TestInvoiceNumbers(t *testing.T) {
	env := newEnv(t)
	replica := env.Replica()
	a := env.NewOrg("A")
	instances := []*apitest.Org{a, a.Via(replica)}
	const n = 30
	numbers := make([]string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res := instances[i%2].Post(base, body("due_date", "2026-06-30"))
			if res.Status != 201 {
				t.Errorf("create %d: %d %s", i, res.Status, res.Body)
				return
			}
			numbers[i], _ = res.Data()["invoice_number"].(string)
		}(i)
	}
	wg.Wait()
	sort.Strings(numbers)
	for i, got := range numbers {
		if w := fmt.Sprintf("INV-%06d", i+1); got != w {
			t.Fatalf("numbers[%d] = %q, want %q", i, got, w)
		}
	}
	dup := a.Post(base, body("due_date", "2026-06-30", "invoice_number", "INV-000007"))
	want(t, dup, 409, "duplicate_record")
	if errDetails(dup)["existing_id"] == nil {
		t.Errorf("details = %v", errDetails(dup))
	}
	if got := ok(t, a.Post(base, body("due_date", "2026-06-30", "invoice_number", "2026/17")), 201)["invoice_number"]; got != "2026/17" {
		t.Errorf("custom = %v", got)
	}
	if got := ok(t, a.Post(base, body("due_date", "2026-06-30")), 201)["invoice_number"]; got != "INV-000031" {
		t.Errorf("next = %v", got)
	}
	// Quotes and invoices count separately.
	if got := ok(t, a.Post("/api/v2/quotes", body("title", "q")), 201)["quote_number"]; got != "Q-000001" {
		t.Errorf("quote = %v", got)
	}
}

func TestInvoiceBadInput(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	b := env.NewOrg("B")
	rows := bookingtest.For(env, a)
	foreign := bookingtest.For(env, b)
	fClient, fEq := foreign.Client("B client").String(), foreign.Equipment("B eq", nil, nil).String()
	tests := []struct {
		name  string
		body  any
		code  string
		field string
	}{
		{"not json", "[1,", "malformed_json", ""},
		{"no due date", body("title", "x"), "validation_error", "due_date"},
		{"due date time", body("due_date", "2026-06-30T00:00:00Z"), "validation_error", "due_date"},
		{"due date invalid", body("due_date", "2026-02-30"), "validation_error", "due_date"},
		{"due date null", body("due_date", nil), "validation_error", "due_date"},
		{"issue date number", body("due_date", "2026-06-30", "issue_date", 20260601), "validation_error", "issue_date"},
		{"bad status", body("due_date", "2026-06-30", "status", "overdue"), "validation_error", "status"},
		{"foreign client", body("due_date", "2026-06-30", "client_id", fClient), "validation_error", "client_id"},
		{"foreign line equipment", body("due_date", "2026-06-30", "line_items", []any{line("equipment_id", fEq, "quantity", 1, "unit_price", 1)}), "validation_error", "line_items[0].equipment_id"},
		{"100 kB notes", body("due_date", "2026-06-30", "notes", strings.Repeat("n", 100_000)), "validation_error", "notes"},
		{"read-only", body("due_date", "2026-06-30", "demo", true), "validation_error", "demo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := a.Post(base, tt.body)
			if res.ErrorCode() != tt.code {
				t.Fatalf("want %s, got %d %s", tt.code, res.Status, res.Body)
			}
			if tt.field != "" && fields(res) != tt.field {
				t.Errorf("fields = %q, want %q", fields(res), tt.field)
			}
			for _, table := range []string{"invoices", "invoice_line_items", "number_counters"} {
				if n := rows.Count(table); n != 0 {
					t.Fatalf("%d rows in %s", n, table)
				}
			}
		})
	}
	id := ok(t, a.Post(base, body("due_date", "2026-06-30")), 201)["id"].(string)
	for name, bd := range map[string]any{"due null": body("due_date", nil), "number null": body("invoice_number", nil),
		"title null": body("title", nil)} {
		if res := a.Patch(base+"/"+id, bd); res.Status != 422 {
			t.Errorf("%s: %d %s", name, res.Status, res.Body)
		}
	}
	want(t, a.Patch(base+"/3f1c2a9e-0000-4000-8000-000000000000", body("title", "x")), 404, "not_found")
	for _, q := range []string{"?status=late", "?limit=-1", "?expand=items"} {
		want(t, a.Get(base+q), 422, "validation_error")
	}
}

func TestInvoiceScopes(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrgWithKey("A", apikey.Live, tenancy.InvoicesRead, tenancy.QuotesWrite)
	want(t, a.Post(base, body("due_date", "2026-06-30")), 403, "insufficient_scope")
	ok(t, a.Get(base), 200)
	w := env.NewOrgWithKey("W", apikey.Live, tenancy.InvoicesWrite)
	want(t, w.Get(base), 403, "insufficient_scope")
	ok(t, w.Post(base, body("due_date", "2026-06-30")), 201)
}
