package quotes_test

import (
	"sync"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestRevisingAnApprovedQuoteWarnsOfItsPickList: once a quote's approval
// made its pick list, a PATCH that sends the quote's lines or sets its
// status answers pick_list_not_updated naming the list when the list no
// longer holds what the quote says: the lines differ from its items, or
// the quote is no longer approved. The approval that makes the list (lines
// sent with it included), the same lines sent again, lines back to the
// list's, a PATCH of the title, an archived list, and a key that may not
// read pick lists get none.
func TestRevisingAnApprovedQuoteWarnsOfItsPickList(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eq := rows.Equipment("Moving head", nil, nil)
	hire := func(n int) []any {
		return []any{line("equipment_id", eq.String(), "quantity", n, "unit_price", 125.5)}
	}
	id := ok(t, a.Post(base, body("title", "Gala", "line_items", hire(10))), 201)["id"].(string)
	noLists := a.WithKey(apikey.Live, tenancy.QuotesRead, tenancy.QuotesWrite)

	var list string
	for _, tc := range []struct {
		name  string
		org   *apitest.Org
		body  map[string]any
		warns bool
		sent  bool // line_items_sent
	}{
		{"approved with new lines: the list follows them", a, body("status", "approved", "line_items", hire(8)), false, false},
		{"the title", a, body("title", "Gala 2027"), false, false},
		{"the same lines again", a, body("line_items", hire(8)), false, false},
		{"the lines revised", a, body("line_items", hire(4)), true, true},
		{"approved again, still revised", a, body("status", "approved"), true, false},
		{"approved again with other lines", a, body("status", "approved", "line_items", hire(6)), true, true},
		{"back to the list's lines", a, body("line_items", hire(8)), false, false},
		{"cancelled", a, body("status", "cancelled"), true, false},
		{"cancelled by a key that may not read pick lists", noLists, body("status", "cancelled"), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.org.Patch(base+"/"+id, tc.body)
			if r.Status != 200 {
				t.Fatalf("PATCH: %d %s", r.Status, r.Body)
			}
			if list == "" {
				list = a.Get("/api/v2/pick_lists").List()[0]["id"].(string)
			}
			ws, _ := r.JSON()["warnings"].([]any)
			if !tc.warns {
				if len(ws) != 0 {
					t.Fatalf("warnings %v, want none", ws)
				}
				return
			}
			if len(ws) != 1 {
				t.Fatalf("warnings %v, want pick_list_not_updated", r.JSON()["warnings"])
			}
			w := ws[0].(map[string]any)
			d, _ := w["details"].(map[string]any)
			if w["code"] != "pick_list_not_updated" || d["pick_list_id"] != list || d["quote_status"] != r.Data()["status"] ||
				d["line_items_sent"] != tc.sent {
				t.Fatalf("warning %v, want pick_list_not_updated naming %s", w, list)
			}
		})
	}
	items := a.Get("/api/v2/pick_lists/" + list + "?expand=items").Data()["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["quantity"] != float64(8) {
		t.Errorf("the list's items %v, want the 8 approved first", items)
	}
	if r := a.Patch("/api/v2/pick_lists/"+list, body("archived", true)); r.Status != 200 {
		t.Fatalf("archive: %d %s", r.Status, r.Body)
	}
	if r := a.Patch(base+"/"+id, body("status", "draft", "line_items", hire(2))); r.Status != 200 || r.JSON()["warnings"] != nil {
		t.Errorf("an archived list: %d, warnings %v, want none", r.Status, r.JSON()["warnings"])
	}
}

// TestTwoApprovalsAtOnceWarnOnce: two PATCHes approve one quote at once,
// each with lines of its own. They run one after the other (the quote's
// row lock): the first's approval makes the pick list from its lines and
// answers no warning; the second finds that list and answers
// pick_list_not_updated. The list holds the lines of the one that did not
// warn, whichever it was.
func TestTwoApprovalsAtOnceWarnOnce(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	eq := bookingtest.For(env, a).Equipment("Moving head", nil, nil)
	for round := range 5 {
		id := ok(t, a.Post(base, body("title", "Gala")), 201)["id"].(string)
		answers := make([]*apitest.Response, 2)
		var wg sync.WaitGroup
		for i := range answers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[i] = a.Patch(base+"/"+id, body("status", "approved", "line_items",
					[]any{line("equipment_id", eq.String(), "quantity", 3+i, "unit_price", 125.5)}))
			}()
		}
		wg.Wait()
		var made []int
		for i, r := range answers {
			if r.Status != 200 {
				t.Fatalf("round %d, PATCH %d: %d %s", round, i, r.Status, r.Body)
			}
			if r.JSON()["warnings"] == nil {
				made = append(made, 3+i)
			}
		}
		if len(made) != 1 {
			t.Fatalf("round %d: %d answers without a warning, want 1: %s / %s", round, len(made), answers[0].Body, answers[1].Body)
		}
		lists := a.Get("/api/v2/pick_lists?expand=items").List()
		var items []any
		for _, l := range lists {
			if l["quote_id"] == id {
				items, _ = l["items"].([]any)
			}
		}
		if len(items) != 1 || items[0].(map[string]any)["quantity"] != float64(made[0]) {
			t.Errorf("round %d: the list's items %v, want the %d of the approval that made it", round, items, made[0])
		}
	}
}
