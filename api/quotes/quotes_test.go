package quotes_test

import (
	"context"
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

func TestQuoteLifecycle(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	cl, ev := rows.Client("Harbor"), rows.Event("Festival")
	eq := rows.Equipment("Speaker", nil, nil)

	q := ok(t, a.Post(base, body("title", "Main stage audio", "client_id", cl.String(), "event_id", ev.String(),
		"internal_notes", "margin 30%", "line_items", []any{
			line("equipment_id", eq.String(), "description", "Speakers", "quantity", 4, "unit_price", 125.5),
			line("description", "Delivery", "quantity", 1, "unit_price", 0.1),
			line("description", "Tech", "quantity", 3, "unit_price", 0.2),
		})), 201)
	id := q["id"].(string)
	for k, v := range map[string]any{"quote_number": "Q-000001", "status": "draft", "quote_type": "rental", "total_amount": 502.7,
		"client_id": cl.String(), "event_id": ev.String(), "notes": nil, "internal_notes": "margin 30%", "demo": false} {
		if q[k] != v {
			t.Errorf("%s = %v, want %v", k, q[k], v)
		}
	}
	ls := lines(q)
	if len(ls) != 3 || ls[0]["line_total"] != 502.0 || ls[0]["equipment_id"] != eq.String() || ls[1]["line_total"] != 0.1 ||
		ls[2]["line_total"] != 0.6 || ls[0]["id"] == nil {
		t.Fatalf("lines = %v", q["line_items"])
	}
	// Money is rendered exactly: 0.1 + 0.6 + 502 is 502.70, not a float sum.
	if res := a.Get(base + "/" + id); !strings.Contains(string(res.Body), `"total_amount":502.70`) {
		t.Errorf("total not exact: %s", res.Body)
	}

	g := ok(t, a.Get(base+"/"+id+"?expand=client,event"), 200)
	if c, _ := g["client"].(map[string]any); c["name"] != "Harbor" {
		t.Errorf("client = %v", g["client"])
	}
	if e, _ := g["event"].(map[string]any); e["name"] != "Festival" {
		t.Errorf("event = %v", g["event"])
	}
	if len(lines(g)) != 3 {
		t.Errorf("detail lines = %v", g["line_items"])
	}

	list := a.Get(base).List()
	if len(list) != 1 || list[0]["line_items"] != nil || list[0]["client"] != nil {
		t.Errorf("list = %v", list)
	}
	if l := a.Get(base + "?expand=client").List(); l[0]["client"] == nil {
		t.Errorf("list expand = %v", l)
	}

	// PATCH without line_items keeps them; with line_items replaces the set.
	p := ok(t, a.Patch(base+"/"+id, body("title", "Audio v2", "status", "sent", "client_id", nil)), 200)
	if p["title"] != "Audio v2" || p["client_id"] != nil || p["total_amount"] != 502.7 || len(lines(p)) != 3 {
		t.Errorf("patch = %v", p)
	}
	p = ok(t, a.Patch(base+"/"+id, body("line_items", []any{line("description", "Flat fee", "quantity", 2, "unit_price", 1000)})), 200)
	if p["total_amount"] != 2000.0 || len(lines(p)) != 1 {
		t.Errorf("replace = %v", p)
	}
	if g := ok(t, a.Get(base+"/"+id), 200); len(lines(g)) != 1 || g["total_amount"] != 2000.0 {
		t.Errorf("after replace = %v", g)
	}
	p = ok(t, a.Patch(base+"/"+id, body("line_items", []any{})), 200)
	if p["total_amount"] != 0.0 || len(lines(p)) != 0 {
		t.Errorf("emptied = %v", p)
	}
	if !strings.Contains(string(a.Get(base+"/"+id).Body), `"line_items":[]`) {
		t.Errorf("empty line_items not rendered as []")
	}
	if n := len(a.Get(base + "?status=sent").List()); n != 1 {
		t.Errorf("status=sent: %d", n)
	}
	if n := len(a.Get(base + "?status=draft").List()); n != 0 {
		t.Errorf("status=draft: %d", n)
	}
}

func TestQuoteNumbers(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	b := env.NewOrg("B")
	if n := ok(t, a.Post(base, body("title", "one")), 201)["quote_number"]; n != "Q-000001" {
		t.Fatalf("first = %v", n)
	}
	// A supplied number is kept and does not consume the sequence.
	custom := ok(t, a.Post(base, body("title", "custom", "quote_number", "Q-000003")), 201)
	if custom["quote_number"] != "Q-000003" {
		t.Fatalf("custom = %v", custom)
	}
	if n := ok(t, a.Post(base, body("title", "two")), 201)["quote_number"]; n != "Q-000002" {
		t.Fatalf("second = %v", n)
	}
	// Q-000003 is taken by hand: the sequence steps over it.
	if n := ok(t, a.Post(base, body("title", "four")), 201)["quote_number"]; n != "Q-000004" {
		t.Fatalf("after custom = %v", n)
	}
	dup := a.Post(base, body("title", "dup", "quote_number", "Q-000002"))
	want(t, dup, 409, "duplicate_record")
	if errDetails(dup)["existing_id"] == nil || errDetails(dup)["field"] != "quote_number" {
		t.Errorf("details = %v", errDetails(dup))
	}
	want(t, a.Patch(base+"/"+custom["id"].(string), body("quote_number", "Q-000001")), 409, "duplicate_record")
	ok(t, a.Patch(base+"/"+custom["id"].(string), body("quote_number", "Q-000003")), 200) // its own number
	// A refused create gives its number back. The refusal must come after
	// the number is drawn, so this test database gets one more CHECK on the
	// line items: the create takes Q-000005, stores the quote, and only then
	// is refused while storing its line, so the whole transaction, the
	// counter included, rolls back.
	if _, err := env.Svc.DB.ExecContext(context.Background(), `ALTER TABLE quote_line_items
		ADD CONSTRAINT quote_line_items_description_check CHECK (description <> 'refused after numbering')`); err != nil {
		t.Fatal(err)
	}
	refused := a.Post(base, body("title", "bad", "line_items", []any{
		map[string]any{"description": "refused after numbering", "quantity": 1, "unit_price": 1}}))
	want(t, refused, 422, "validation_error")
	if n := quoteCount(t, env, a); n != 4 {
		t.Fatalf("%d quotes stored after a refused create, want 4", n)
	}
	if n := ok(t, a.Post(base, body("title", "five")), 201)["quote_number"]; n != "Q-000005" {
		t.Fatalf("after refused = %v", n)
	}
	// Sequences are per organization.
	if n := ok(t, b.Post(base, body("title", "b one", "quote_number", "Q-000001")), 201)["quote_number"]; n != "Q-000001" {
		t.Fatalf("org B supplied = %v", n)
	}
	if n := ok(t, b.Post(base, body("title", "b two")), 201)["quote_number"]; n != "Q-000002" {
		t.Fatalf("org B = %v", n)
	}
}

// TestNumbersUnderConcurrency creates 30 quotes at once through two
// instances: the numbers are exactly Q-000001..Q-000030.
func TestNumbersUnderConcurrency(t *testing.T) {
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
			var headers []string // every third runs in the request's transaction
			if i%3 == 0 {
				headers = []string{"Idempotency-Key", fmt.Sprint("numbers-", i)}
			}
			res := instances[i%2].Do("POST", base, body("title", fmt.Sprint("q", i)), headers...)
			if res.Status == 201 {
				numbers[i], _ = res.Data()["quote_number"].(string)
			} else {
				t.Errorf("create %d: %d %s", i, res.Status, res.Body)
			}
		}(i)
	}
	wg.Wait()
	sort.Strings(numbers)
	for i, got := range numbers {
		if w := fmt.Sprintf("Q-%06d", i+1); got != w {
			t.Fatalf("numbers[%d] = %q, want %q (all: %v)", i, got, w, numbers)
		}
	}
}

func TestApprovalCreatesOnePickList(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	ev := rows.Event("Gala")
	spk, mic := rows.Equipment("Speaker", nil, nil), rows.Equipment("Mic", nil, nil)
	q := ok(t, a.Post(base, body("title", "Gala audio", "event_id", ev.String(), "line_items", []any{
		line("equipment_id", spk.String(), "quantity", 2, "unit_price", 10),
		line("equipment_id", mic.String(), "quantity", 4, "unit_price", 5),
		line("equipment_id", spk.String(), "description", "spare", "quantity", 1, "unit_price", 10),
		line("description", "Stage manager", "quantity", 1, "unit_price", 300),
	})), 201)
	id := q["id"].(string)
	if n := rows.Count("pick_lists"); n != 0 {
		t.Fatalf("draft quote made %d pick lists", n)
	}
	ok(t, a.Patch(base+"/"+id, body("status", "approved")), 200)
	pls := a.Get("/api/v2/pick_lists?expand=items").List()
	if len(pls) != 1 {
		t.Fatalf("pick lists = %v", pls)
	}
	pl := pls[0]
	if pl["name"] != "Gala audio" || pl["quote_id"] != id || pl["event_id"] != ev.String() || pl["status"] != "draft" {
		t.Errorf("pick list = %v", pl)
	}
	items, _ := pl["items"].([]any)
	got := map[string]float64{}
	for _, x := range items {
		it := x.(map[string]any)
		key, _ := it["equipment_id"].(string)
		if key == "" {
			key, _ = it["custom_description"].(string)
		}
		got[key] = it["quantity"].(float64)
		if it["stage"] != "pending" {
			t.Errorf("item stage = %v", it["stage"])
		}
	}
	if len(got) != 3 || got[spk.String()] != 3 || got[mic.String()] != 4 || got["Stage manager"] != 1 {
		t.Errorf("items = %v", got)
	}
	// Approving again, or approved → sent → approved, never makes a second.
	ok(t, a.Patch(base+"/"+id, body("status", "approved")), 200)
	ok(t, a.Patch(base+"/"+id, body("status", "sent")), 200)
	ok(t, a.Patch(base+"/"+id, body("status", "approved")), 200)
	if n := rows.Count("pick_lists"); n != 1 {
		t.Fatalf("%d pick lists after re-approval", n)
	}
	// A quote created approved gets its list at once.
	q2 := ok(t, a.Post(base, body("title", "Direct", "status", "approved")), 201)
	if n := rows.Count("pick_lists"); n != 2 {
		t.Fatalf("%d pick lists after approved create", n)
	}
	// A manual pick list for an approved quote's quote_id is a conflict.
	want(t, a.Post("/api/v2/pick_lists", body("name", "dup", "quote_id", q2["id"])), 409, "duplicate_record")
}

// TestApprovalListTakesTheQuotesDemo: the pick list an approval makes is
// the quote's, demo or not, whichever key approves: a test key of an
// organization without a sandbox approving a live quote makes a live list
// (cleaning up by demo: true must not take it), and a live key approving
// a test quote a demo one.
func TestApprovalListTakesTheQuotesDemo(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	test := *a
	test.Key = env.NewKey(a.ID, apikey.Test, tenancy.AllScopes...)
	for _, tt := range []struct {
		name              string
		creator, approver *apitest.Org
		demo              bool
	}{
		{"a live quote approved by a test key", a, &test, false},
		{"a test quote approved by a live key", &test, a, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := ok(t, tt.creator.Post(base, body("title", tt.name, "line_items", []any{
				line("description", "Stage manager", "quantity", 1, "unit_price", 300)})), 201)
			ok(t, tt.approver.Patch(base+"/"+q["id"].(string), body("status", "approved")), 200)
			var pls []map[string]any
			for _, pl := range a.Get("/api/v2/pick_lists?expand=items").List() {
				if pl["quote_id"] == q["id"] {
					pls = append(pls, pl)
				}
			}
			if len(pls) != 1 {
				t.Fatalf("the quote's pick lists = %v", pls)
			}
			items, _ := pls[0]["items"].([]any)
			if pls[0]["demo"] != tt.demo || len(items) != 1 || items[0].(map[string]any)["demo"] != tt.demo {
				t.Errorf("pick list %v, want demo %v on it and its item", pls[0], tt.demo)
			}
		})
	}
}

// TestParallelApprovals approves one quote from 10 requests at once across
// two instances: exactly one pick list exists afterwards.
func TestParallelApprovals(t *testing.T) {
	env := newEnv(t)
	replica := env.Replica()
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eq := rows.Equipment("Truss", nil, nil)
	id := ok(t, a.Post(base, body("title", "Truss", "line_items", []any{line("equipment_id", eq.String(), "quantity", 8, "unit_price", 20)})), 201)["id"].(string)
	instances := []*apitest.Org{a, a.Via(replica)}
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if res := instances[i%2].Patch(base+"/"+id, body("status", "approved")); res.Status != 200 {
				t.Errorf("approve %d: %d %s", i, res.Status, res.Body)
			}
		}(i)
	}
	wg.Wait()
	if n := rows.Count("pick_lists"); n != 1 {
		t.Fatalf("%d pick lists, want 1", n)
	}
	if n := rows.Count("pick_list_items"); n != 1 {
		t.Fatalf("%d pick list items, want 1", n)
	}
}

func TestQuoteBadInput(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	b := env.NewOrg("B")
	rows := bookingtest.For(env, a)
	foreign := bookingtest.For(env, b)
	fClient, fEvent, fEq := foreign.Client("B client").String(), foreign.Event("B event").String(), foreign.Equipment("B eq", nil, nil).String()
	eq := rows.Equipment("Mine", nil, nil).String()
	good := func(kv ...any) map[string]any {
		m := body("title", "x")
		for k, v := range body(kv...) {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name  string
		body  any
		code  string
		field string
	}{
		{"not json", "{", "malformed_json", ""},
		{"no title", body("notes", "x"), "validation_error", "title"},
		{"title number", body("title", 5), "validation_error", "title"},
		{"title 100 kB", body("title", strings.Repeat("t", 100_000)), "validation_error", "title"},
		{"bad status", good("status", "won"), "validation_error", "status"},
		{"empty number", good("quote_number", ""), "validation_error", "quote_number"},
		{"read-only total", good("total_amount", 5), "validation_error", "total_amount"},
		{"unknown", good("discount", 5), "validation_error", "discount"},
		{"foreign client", good("client_id", fClient), "validation_error", "client_id"},
		{"foreign event", good("event_id", fEvent), "validation_error", "event_id"},
		{"bad client uuid", good("client_id", "abc"), "validation_error", "client_id"},
		{"lines not array", good("line_items", "x"), "validation_error", "line_items"},
		{"lines null", good("line_items", nil), "validation_error", "line_items"},
		{"line not object", good("line_items", []any{1}), "validation_error", "line_items[0]"},
		{"line no quantity", good("line_items", []any{line("description", "d", "unit_price", 1)}), "validation_error", "line_items[0].quantity"},
		{"line zero quantity", good("line_items", []any{line("description", "d", "quantity", 0, "unit_price", 1)}), "validation_error", "line_items[0].quantity"},
		{"line negative price", good("line_items", []any{line("description", "d", "quantity", 1, "unit_price", -1)}), "validation_error", "line_items[0].unit_price"},
		{"line 3 decimals", good("line_items", []any{line("description", "d", "quantity", 1, "unit_price", 1.005)}), "validation_error", "line_items[0].unit_price"},
		{"line price string", good("line_items", []any{line("description", "d", "quantity", 1, "unit_price", "1.00")}), "validation_error", "line_items[0].unit_price"},
		{"line nothing", good("line_items", []any{line("quantity", 1, "unit_price", 1)}), "validation_error", "line_items[0].description"},
		{"line unknown", good("line_items", []any{line("description", "d", "quantity", 1, "unit_price", 1, "tax", 2)}), "validation_error", "line_items[0].tax"},
		{"line read-only", good("line_items", []any{line("description", "d", "quantity", 1, "unit_price", 1, "line_total", 1)}), "validation_error", "line_items[0].line_total"},
		{"line foreign equipment", good("line_items", []any{line("equipment_id", eq, "quantity", 1, "unit_price", 1), line("equipment_id", fEq, "quantity", 1, "unit_price", 1)}), "validation_error", "line_items[1].equipment_id"},
		{"line total too big", good("line_items", []any{line("description", "d", "quantity", 1_000_000, "unit_price", 9999999999.99)}), "validation_error", "line_items[0].unit_price"},
		{"too many lines", good("line_items", make([]any, 501)), "validation_error", "line_items"},
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
			for _, table := range []string{"quotes", "quote_line_items", "number_counters"} {
				if n := rows.Count(table); n != 0 {
					t.Fatalf("%d rows in %s", n, table)
				}
			}
		})
	}
	id := ok(t, a.Post(base, good("line_items", []any{line("description", "d", "quantity", 1, "unit_price", 1)})), 201)["id"].(string)
	before := string(a.Get(base + "/" + id).Body)
	for name, bd := range map[string]any{"title null": body("title", nil), "foreign eq": body("line_items", []any{line("equipment_id", fEq, "quantity", 1, "unit_price", 1)}),
		"bad line": body("line_items", []any{line("quantity", 1)}), "total beside a bad title": body("total_amount", 1, "title", 5), "quote_type null": body("quote_type", nil)} {
		if res := a.Patch(base+"/"+id, bd); res.Status != 422 {
			t.Errorf("%s: %d %s", name, res.Status, res.Body)
		}
		if after := string(a.Get(base + "/" + id).Body); after != before {
			t.Fatalf("%s changed the quote", name)
		}
	}
	for _, q := range []string{"?status=won", "?limit=500", "?cursor=x", "?expand=items"} {
		want(t, a.Get(base+q), 422, "validation_error")
	}
	want(t, a.Get(base+"/"+id+"?expand=vehicle"), 422, "validation_error")
}

func TestQuoteScopes(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrgWithKey("A", apikey.Live, tenancy.QuotesRead)
	want(t, a.Post(base, body("title", "x")), 403, "insufficient_scope")
	ok(t, a.Get(base), 200)
	w := env.NewOrgWithKey("W", apikey.Live, tenancy.QuotesWrite, tenancy.InvoicesRead)
	want(t, w.Get(base), 403, "insufficient_scope")
	ok(t, w.Post(base, body("title", "x")), 201)
}

// quoteCount counts the quotes stored for o.
func quoteCount(t *testing.T, env *apitest.Env, o *apitest.Org) int {
	t.Helper()
	n, err := env.Svc.DB.NewSelect().Table("quotes").Where("organization_id = ?", o.ID).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}
