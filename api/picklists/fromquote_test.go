package picklists_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/api/storage/picklists"
)

const quotes = "/api/v2/quotes"

// quoteLine is one quote line item of qty units of equipment eq (or, with
// eq "", of a description).
func quoteLine(eq string, desc string, qty int) map[string]any {
	l := body("quantity", qty, "unit_price", 1)
	if eq != "" {
		l["equipment_id"] = eq
	} else {
		l["description"] = desc
	}
	return l
}

// pickListOfQuote returns the ids of the pick lists of quote, read from the
// database.
func pickListOfQuote(t *testing.T, env *apitest.Env, org *apitest.Org, quote string) []string {
	t.Helper()
	var ids []uuid.UUID
	err := env.Svc.DB.NewSelect().Table("pick_lists").Column("id").
		Where("organization_id = ?", org.ID).Where("quote_id = ?", quote).Scan(context.Background(), &ids)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}

// TestQuoteItemsAboveALineMaximum approves a quote whose lines of one
// equipment add up to more than one line may hold: the pick list has one
// item per equipment record with the summed quantity (docs/decisions.md), in the
// order of the first lines, within the item write maximum, and each item
// survives a PATCH of its own fields (GET → PATCH round trip), which a
// maximum of 1,000,000 refused.
func TestQuoteItemsAboveALineMaximum(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	truss, mic := rows.Equipment("Truss", nil, nil).String(), rows.Equipment("Mic", nil, nil).String()
	q := ok(t, a.Post(quotes, body("title", "Stadium", "line_items", []any{
		quoteLine(truss, "", 600_000),
		quoteLine(mic, "", 4),
		quoteLine(truss, "", 600_000),
		quoteLine("", "Crew", 1_000_000),
	})), 201)["id"].(string)
	ok(t, a.Patch(quotes+"/"+q, body("status", "approved")), 200)
	ids := pickListOfQuote(t, env, a, q)
	if len(ids) != 1 {
		t.Fatalf("pick lists of the quote = %v", ids)
	}
	its := itemsOf(ok(t, a.Get(lists+"/"+ids[0]), 200))

	type kq struct {
		what string
		qty  float64
	}
	want := []kq{{truss, 1_200_000}, {mic, 4}, {"Crew", 1_000_000}}
	var got []kq
	for _, it := range its {
		what, _ := it["equipment_id"].(string)
		if what == "" {
			what, _ = it["custom_description"].(string)
		}
		qty := it["quantity"].(float64)
		got = append(got, kq{what, qty})
		if qty < 1 || qty > picklists.MaxItemQuantity {
			t.Errorf("item %v quantity %v, above the write maximum %d", it["id"], qty, picklists.MaxItemQuantity)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("items = %v, want %v", got, want)
	}

	// Each item survives a PATCH that sends it back: first its quantity and
	// stage, then the whole object as GET returned it (read-only fields are
	// ignored on PATCH). Nothing changes.
	for _, it := range its {
		id := it["id"].(string)
		p := ok(t, a.Patch(items+"/"+id, body("quantity", it["quantity"], "stage", it["stage"])), 200)
		if p["quantity"] != it["quantity"] || p["stage"] != it["stage"] || p["updated_at"] != it["updated_at"] {
			t.Errorf("PATCH of its own quantity and stage changed item %s: %v → %v", id, it, p)
		}
		whole := ok(t, a.Patch(items+"/"+id, it), 200)
		if whole["quantity"] != it["quantity"] || whole["updated_at"] != it["updated_at"] {
			t.Errorf("PATCH of the whole item changed item %s: %v → %v", id, it, whole)
		}
	}
	if after := itemsOf(ok(t, a.Get(lists+"/"+ids[0]), 200)); fmt.Sprint(after) != fmt.Sprint(its) {
		t.Errorf("items changed by PATCHes of their own values:\n%v\n%v", its, after)
	}
}

// TestConcurrentPickListsForOneQuote sends eight POST /pick_lists for one
// draft quote at once (across two instances, half of them under an
// Idempotency-Key, so inside the middleware's transaction) while the
// quote's approval races them. Exactly one pick list is made, the
// approval's, with the quote's items; a POST is the documented 422 on
// quote_id when it ran before the approval (a hand-made list would take the
// place of the approval's) and the 409 duplicate_record naming the list
// after it, never a 201.
func TestConcurrentPickListsForOneQuote(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	instances := []*apitest.Org{a, a.Via(env.Replica())}
	eq := bookingtest.For(env, a).Equipment("Truss", nil, nil).String()
	const posts = 8
	for round := 0; round < 6; round++ {
		q := ok(t, a.Post(quotes, body("title", fmt.Sprint("Q", round), "line_items", []any{quoteLine(eq, "", 3)})), 201)["id"].(string)

		start := make(chan struct{})
		var wg sync.WaitGroup
		res := make([]*apitest.Response, posts)
		for i := range posts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var headers []string
				if i%2 == 0 {
					headers = []string{"Idempotency-Key", uuid.NewString()}
				}
				<-start
				res[i] = instances[(i/2)%2].Do(http.MethodPost, lists, body("name", fmt.Sprint("manual ", i), "quote_id", q), headers...)
			}()
		}
		var approval *apitest.Response
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			approval = instances[round%2].Patch(quotes+"/"+q, body("status", "approved"))
		}()
		close(start)
		wg.Wait()

		ids := pickListOfQuote(t, env, a, q)
		if len(ids) != 1 {
			t.Fatalf("round %d: pick lists of the quote = %v", round, ids)
		}
		if approval.Status != 200 {
			t.Errorf("round %d: approval %d %s", round, approval.Status, approval.Body)
		}
		if its := itemsOf(ok(t, a.Get(lists+"/"+ids[0]), 200)); len(its) != 1 {
			t.Errorf("round %d: the quote's pick list has items %v, want the quote's one", round, its)
		}
		for i, r := range res {
			switch r.Status {
			case 422:
				if r.ErrorCode() != "validation_error" || !strings.Contains(string(r.Body), "quote_id") {
					t.Errorf("round %d: POST %d: want 422 on quote_id, got %s", round, i, r.Body)
				}
			case 409:
				d := errDetails(r)
				if r.ErrorCode() != "duplicate_record" || d["field"] != "quote_id" || d["existing_id"] != ids[0] {
					t.Errorf("round %d: POST %d: want 409 duplicate_record {field: quote_id, existing_id: %s}, got %s",
						round, i, ids[0], r.Body)
				}
			default:
				t.Errorf("round %d: POST %d: %d %s", round, i, r.Status, r.Body)
			}
		}
	}
}

// TestQuoteItemsKeepTheLineOrder approves a quote of many lines: the pick
// list's items come back in the order of the lines, every time (the rows
// of one INSERT would otherwise often share a timestamp and fall back to
// the order of their random ids).
func TestQuoteItemsKeepTheLineOrder(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	var lines []any
	var want []string
	for i := range 60 {
		if i%5 == 4 {
			d := fmt.Sprint("note ", i)
			lines = append(lines, quoteLine("", d, 1))
			want = append(want, d)
			continue
		}
		eq := rows.Equipment(fmt.Sprint("E", i), nil, nil).String()
		lines = append(lines, quoteLine(eq, "", i+1))
		want = append(want, eq)
	}
	q := ok(t, a.Post(quotes, body("title", "Many", "line_items", lines)), 201)["id"].(string)
	ok(t, a.Patch(quotes+"/"+q, body("status", "approved")), 200)
	ids := pickListOfQuote(t, env, a, q)
	if len(ids) != 1 {
		t.Fatalf("pick lists of the quote = %v", ids)
	}
	var got []string
	for _, it := range itemsOf(ok(t, a.Get(lists+"/"+ids[0]), 200)) {
		what, _ := it["equipment_id"].(string)
		if what == "" {
			what, _ = it["custom_description"].(string)
		}
		got = append(got, what)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("items out of line order:\n got %v\nwant %v", got, want)
	}
	// The list's updated_at moves with every item created, the approval's
	// included: no item is newer than its list.
	list := ok(t, a.Get(lists+"/"+ids[0]), 200)
	at := func(v any) time.Time {
		ts, err := time.Parse(time.RFC3339Nano, v.(string))
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	updated := at(list["updated_at"])
	for _, it := range itemsOf(list) {
		if created := at(it["created_at"]); created.After(updated) {
			t.Fatalf("item created at %v, after its list's updated_at %v", created, updated)
		}
	}
}

// TestPickListFollowsItsQuotesEvent: the pick list of an approved quote
// carries the quote's event, also when the quote gets one, another or none
// after approval (its own PATCH cannot set it), and each move records a
// pick_list.updated change; a quote write that leaves the event alone
// leaves the list alone.
func TestPickListFollowsItsQuotesEvent(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	first, second := rows.Event("First").String(), rows.Event("Second").String()
	q := ok(t, a.Post(quotes, body("title", "No event yet", "status", "approved",
		"line_items", []any{quoteLine("", "Stage", 1)})), 201)["id"].(string)
	ids := pickListOfQuote(t, env, a, q)
	if len(ids) != 1 {
		t.Fatalf("pick lists of the quote = %v", ids)
	}
	list := lists + "/" + ids[0]
	// The changes table holds a change once its write committed; the feed
	// lists it a little later (docs/changes.md).
	changes := func() int {
		var n int
		err := env.Svc.DB.NewRaw("SELECT count(*) FROM changes WHERE organization_id = ? AND object_id = ? AND type = 'pick_list.updated'",
			a.ID, ids[0]).Scan(context.Background(), &n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i, step := range []struct {
		event   any // the quote's event_id to PATCH
		want    any // the list's event_id after it
		changes int // pick_list.updated changes so far
	}{
		{first, first, 1},
		{second, second, 2},
		{second, second, 2}, // the same event again: no write
		{nil, nil, 3},
	} {
		ok(t, a.Patch(quotes+"/"+q, body("event_id", step.event)), 200)
		if got := ok(t, a.Get(list), 200)["event_id"]; got != step.want {
			t.Fatalf("step %d: the pick list's event_id = %v, want %v", i, got, step.want)
		}
		if n := changes(); n != step.changes {
			t.Fatalf("step %d: %d pick_list.updated changes, want %d", i, n, step.changes)
		}
	}
	ok(t, a.Patch(quotes+"/"+q, body("title", "Renamed")), 200)
	if n := changes(); n != 3 {
		t.Fatalf("a quote write without event_id: %d pick_list.updated changes, want 3", n)
	}
}
