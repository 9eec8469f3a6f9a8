package changes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/changes"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

const feedPath = "/api/v2/changes"

// follow reads o's feed from cursor until a page says has_more false and
// returns the changes and the cursor to poll from next.
func follow(t testing.TB, o *apitest.Org, query, cursor string) ([]map[string]any, string) {
	t.Helper()
	var out []map[string]any
	for {
		q := feedPath + "?limit=100" + query
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		res := o.Get(q)
		if res.Status != 200 {
			t.Fatalf("GET %s: %d %s", q, res.Status, res.Body)
		}
		out = append(out, res.List()...)
		pg := res.JSON()["pagination"].(map[string]any)
		if next, ok := pg["next_cursor"].(string); ok {
			cursor = next
		}
		if more, _ := pg["has_more"].(bool); !more {
			return out, cursor
		}
	}
}

// settle follows o's feed until done holds for the changes read so far (the
// feed lists a change once every transaction that began before it has ended,
// which on a shared server takes a moment, and longer while another
// package's test holds a write transaction open). The polls back off from
// 20 ms to half a second, so a long wait does not spend the organization's
// rate limit.
func settle(t testing.TB, o *apitest.Org, query string, done func(all []map[string]any) bool) []map[string]any {
	t.Helper()
	return settleFrom(t, o, query, "", done)
}

// settleFrom is settle from cursor (the feed's start when empty).
func settleFrom(t testing.TB, o *apitest.Org, query, cursor string, done func(all []map[string]any) bool) []map[string]any {
	t.Helper()
	var all []map[string]any
	wait := 20 * time.Millisecond
	for deadline := time.Now().Add(60 * time.Second); ; {
		var got []map[string]any
		got, cursor = follow(t, o, query, cursor)
		all = append(all, got...)
		if done(all) {
			return all
		}
		if time.Now().After(deadline) {
			t.Fatalf("feed holds %d changes after 60s: %v", len(all), types(all))
		}
		time.Sleep(wait)
		wait = min(wait*3/2, 500*time.Millisecond)
	}
}

// atLeast is a settle condition: n changes.
func atLeast(n int) func([]map[string]any) bool {
	return func(all []map[string]any) bool { return len(all) >= n }
}

// holds is a settle condition: a change of object id.
func holds(id any) func([]map[string]any) bool {
	return func(all []map[string]any) bool {
		for _, c := range all {
			if c["object_id"] == id {
				return true
			}
		}
		return false
	}
}

func create(t testing.TB, o *apitest.Org, path string, body map[string]any) map[string]any {
	t.Helper()
	res := o.Post(path, body)
	if res.Status != 201 {
		t.Fatalf("POST %s: %d %s", path, res.Status, res.Body)
	}
	return res.Data()
}

func patch(t testing.TB, o *apitest.Org, path string, body map[string]any) map[string]any {
	t.Helper()
	res := o.Patch(path, body)
	if res.Status != 200 {
		t.Fatalf("PATCH %s: %d %s", path, res.Status, res.Body)
	}
	return res.Data()
}

func get(t testing.TB, o *apitest.Org, path string) map[string]any {
	t.Helper()
	res := o.Get(path)
	if res.Status != 200 {
		t.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
	}
	return res.Data()
}

// TestEveryWriteIsAChangeRenderedAsGet writes every kind of record through
// the API (creates, updates, a status move, a quote approval that makes a
// pick list, deletions) and reads the feed: one change per changed record,
// in order, each carrying the record exactly as GET rendered it then.
func TestEveryWriteIsAChangeRenderedAsGet(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	type want struct {
		typ  string
		id   string
		data map[string]any // nil: not compared (a record made inside another write)
	}
	var wants []want
	add := func(typ string, rec map[string]any) { wants = append(wants, want{typ, rec["id"].(string), rec}) }

	client := create(t, a, "/api/v2/clients", map[string]any{"name": "Client", "email": "c@client.example"})
	add("client.created", get(t, a, "/api/v2/clients/"+client["id"].(string)))
	add("client.updated", patch(t, a, "/api/v2/clients/"+client["id"].(string), map[string]any{"name": "Renamed"}))
	event := create(t, a, "/api/v2/events", map[string]any{"name": "Gala", "client_id": client["id"],
		"start_date": "2026-06-01T18:00:00Z", "end_date": "2026-06-02T02:00:00Z", "venue": "Pier 4"})
	add("event.created", event)
	add("event.updated", patch(t, a, "/api/v2/events/"+event["id"].(string), map[string]any{"status": "confirmed"}))
	crew := create(t, a, "/api/v2/crew_members", map[string]any{"first_name": "Dana", "last_name": "Okafor"})
	add("crew_member.created", crew)
	cat := create(t, a, "/api/v2/equipment_categories", map[string]any{"name": "Audio", "color": "#1E88E5"})
	add("equipment_category.created", cat)
	eq := create(t, a, "/api/v2/equipment", map[string]any{"name": "Amp", "category_id": cat["id"], "stock_quantity": 4})
	add("equipment.created", get(t, a, "/api/v2/equipment/"+eq["id"].(string)))
	truck := create(t, a, "/api/v2/vehicles", map[string]any{"name": "Truck", "status": "available"})
	add("vehicle.created", truck)
	res := create(t, a, "/api/v2/equipment_reservations", map[string]any{"equipment_id": eq["id"], "event_id": event["id"],
		"vehicle_id": truck["id"], "quantity": 2, "start_date": "2026-06-01T08:00:00Z", "end_date": "2026-06-03T20:00:00Z"})
	resPath := "/api/v2/equipment_reservations/" + res["id"].(string)
	add("equipment_reservation.created", get(t, a, resPath))
	invoice := create(t, a, "/api/v2/invoices", map[string]any{"title": "Invoice", "due_date": "2026-12-01",
		"line_items": []any{map[string]any{"description": "Hire", "quantity": 2, "unit_price": 12.5}}})
	add("invoice.created", invoice)
	quote := create(t, a, "/api/v2/quotes", map[string]any{"title": "Quote", "event_id": event["id"],
		"line_items": []any{map[string]any{"equipment_id": eq["id"], "description": "Amp hire", "quantity": 2, "unit_price": 45.5}}})
	add("quote.created", quote)
	approved := patch(t, a, "/api/v2/quotes/"+quote["id"].(string), map[string]any{"status": "approved"})

	last := get(t, a, resPath)
	if r := a.Delete(resPath); r.Status != 204 {
		t.Fatalf("DELETE reservation: %d %s", r.Status, r.Body)
	}

	all := settle(t, a, "", func(all []map[string]any) bool {
		for _, c := range all {
			if c["type"] == "equipment_reservation.deleted" {
				return true
			}
		}
		return false
	})
	byType := map[string][]map[string]any{}
	for _, c := range all {
		byType[c["type"].(string)] = append(byType[c["type"].(string)], c)
	}
	if len(byType["quote.approved"]) != 1 || byType["pick_list.created"] == nil || byType["pick_list_item.created"] == nil {
		t.Fatalf("the approval gave %d quote.approved, %d pick_list.created, %d pick_list_item.created; want 1 and ≥1 and ≥1",
			len(byType["quote.approved"]), len(byType["pick_list.created"]), len(byType["pick_list_item.created"]))
	}
	wants = append(wants, want{"quote.approved", quote["id"].(string), approved})
	wants = append(wants, want{"equipment_reservation.deleted", res["id"].(string), last})

	pos := map[string]int{}
	for i, c := range all {
		pos[c["id"].(string)] = i
	}
	prev := -1
	for _, w := range wants {
		var found map[string]any
		for _, c := range all {
			if c["type"] == w.typ && c["object_id"] == w.id {
				found = c
			}
		}
		if found == nil {
			t.Errorf("no %s change of %s in the feed", w.typ, w.id)
			continue
		}
		if i := pos[found["id"].(string)]; i < prev {
			t.Errorf("%s of %s is listed before an earlier write's change", w.typ, w.id)
		} else {
			prev = i
		}
		if found["object_type"] != w.typ[:len(w.typ)-len(suffix(w.typ))-1] {
			t.Errorf("%s: object_type %v", w.typ, found["object_type"])
		}
		if !reflect.DeepEqual(found["data"], w.data) {
			g, _ := json.Marshal(found["data"])
			e, _ := json.Marshal(w.data)
			t.Errorf("%s data differs from GET:\n got  %s\n want %s", w.typ, g, e)
		}
	}
	for _, c := range all {
		if c["type"] == "quote.updated" {
			t.Errorf("the approval also gave a quote.updated: %v", c)
		}
	}
}

func suffix(typ string) string {
	for i := len(typ) - 1; i >= 0; i-- {
		if typ[i] == '.' {
			return typ[i+1:]
		}
	}
	return typ
}

// TestScopesTypesAndOrganizations: a key sees only the object types it may
// read; ?type narrows the feed; another organization's changes never show;
// a bad type or cursor is a 422.
func TestScopesTypesAndOrganizations(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	create(t, a, "/api/v2/clients", map[string]any{"name": "A client"})
	create(t, a, "/api/v2/crew_members", map[string]any{"first_name": "Ann", "last_name": "Lee"})
	bClient := create(t, b, "/api/v2/clients", map[string]any{"name": "B client"})
	settle(t, a, "", atLeast(2))
	settle(t, b, "", atLeast(1))

	clientsOnly := a.WithKey(apikey.Live, tenancy.ClientsRead)
	got, _ := follow(t, clientsOnly, "", "")
	if len(got) != 1 || got[0]["type"] != "client.created" {
		t.Errorf("clients:read key sees %v, want A's client.created only", types(got))
	}
	got, _ = follow(t, a, "&type=crew_member.created", "")
	if len(got) != 1 || got[0]["type"] != "crew_member.created" {
		t.Errorf("type filter gives %v", types(got))
	}
	all, _ := follow(t, a, "", "")
	for _, c := range all {
		if c["object_id"] == bClient["id"] {
			t.Errorf("A's feed holds B's change %v", c)
		}
	}
	noRead := a.WithKey(apikey.Live, tenancy.EventsWrite)
	if r := noRead.Get(feedPath); r.Status != 403 {
		t.Errorf("a key with no read scope: %d, want 403", r.Status)
	} else {
		// The 403 names each scope that would do, once.
		details, _ := r.JSON()["error"].(map[string]any)["details"].(map[string]any)
		required, _ := details["required"].([]any)
		seen := map[any]bool{}
		for _, s := range required {
			if seen[s] {
				t.Errorf("required lists %v twice: %v", s, required)
			}
			seen[s] = true
		}
		if !seen["clients:read"] || !seen["events:read"] {
			t.Errorf("required %v lacks clients:read or events:read", required)
		}
	}
	_, bCursor := follow(t, b, "", "")
	for _, q := range []string{"?type=event.exploded", "?type=", "?cursor=abc", "?limit=0", "?cursor=" + url.QueryEscape(bCursor)} {
		r := a.Get(feedPath + q)
		if q == "?type=" && r.Status == 200 {
			continue
		}
		if r.Status != 422 || r.ErrorCode() != "validation_error" {
			t.Errorf("GET %s: %d %s, want 422 validation_error", q, r.Status, r.Body)
		}
	}
	// A ?type= refused for its length says so, not that it is no list.
	long := strings.Repeat("client.created,", changes.MaxTypeLength/15+1)
	if r := a.Get(feedPath + "?type=" + long); r.Status != 422 || !strings.Contains(string(r.Body), "at most 2000 characters") {
		t.Errorf("GET ?type= of %d characters: %d %s, want 422 naming the length", len(long), r.Status, r.Body)
	}
}

func types(cs []map[string]any) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, fmt.Sprint(c["type"]))
	}
	slices.Sort(out)
	return out
}

// TestRefusedWritesLeaveNoChange: a write the stock guard refuses
// (overbook_blocked) and an invalid body record nothing.
func TestRefusedWritesLeaveNoChange(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	eq := create(t, a, "/api/v2/equipment", map[string]any{"name": "Amp", "stock_quantity": 1})
	body := map[string]any{"equipment_id": eq["id"], "quantity": 1, "start_date": "2026-06-01T08:00:00Z", "end_date": "2026-06-03T20:00:00Z"}
	create(t, a, "/api/v2/equipment_reservations", body)
	before := settle(t, a, "", atLeast(2))

	body["quantity"] = 5
	if r := a.Post("/api/v2/equipment_reservations", body); r.Status != 422 || r.ErrorCode() != "overbook_blocked" {
		t.Fatalf("overbooking: %d %s, want 422 overbook_blocked", r.Status, r.Body)
	}
	if r := a.Post("/api/v2/clients", map[string]any{"name": 12}); r.Status != 422 {
		t.Fatalf("bad client: %d %s", r.Status, r.Body)
	}
	marker := create(t, a, "/api/v2/clients", map[string]any{"name": "Marker"})
	after := settle(t, a, "", holds(marker["id"]))
	if len(after) != len(before)+1 || after[len(after)-1]["object_id"] != marker["id"] {
		t.Fatalf("after two refused writes and one client, the feed grew by %d: %v", len(after)-len(before), types(after[len(before):]))
	}
}

// TestCursorIsBoundToTheSetOfTypes: a cursor issued for one type filter goes
// on with the same set of types in another order or with a type repeated,
// and is refused for another set (docs/decisions.md: a cursor is bound to
// the values of the filters, not their spelling).
func TestCursorIsBoundToTheSetOfTypes(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	c1 := create(t, a, "/api/v2/clients", map[string]any{"name": "One"})
	create(t, a, "/api/v2/clients", map[string]any{"name": "Two"})
	patch(t, a, "/api/v2/clients/"+c1["id"].(string), map[string]any{"name": "One again"})
	settle(t, a, "&type=client.created,client.updated", atLeast(3))

	first := a.Get(feedPath + "?limit=1&type=client.created,client.updated")
	cursor, _ := first.JSON()["pagination"].(map[string]any)["next_cursor"].(string)
	if first.Status != 200 || cursor == "" {
		t.Fatalf("first page: %d %s", first.Status, first.Body)
	}
	for _, tc := range []struct {
		types  string
		status int
	}{
		{"client.created,client.updated", 200},
		{"client.updated,client.created", 200},
		{"client.created,client.updated,client.created", 200},
		{"client.updated,%20client.created,client.updated", 200},
		{"client.created", 422},
		{"client.created,client.updated,client.deleted", 422},
	} {
		r := a.Get(feedPath + "?limit=1&type=" + tc.types + "&cursor=" + url.QueryEscape(cursor))
		if r.Status != tc.status {
			t.Errorf("type=%s with the cursor of type=client.created,client.updated: %d %s, want %d", tc.types, r.Status, r.Body, tc.status)
			continue
		}
		if tc.status == 200 {
			if l := r.List(); len(l) != 1 || l[0]["type"] != "client.created" || l[0]["object_id"] == c1["id"] {
				t.Errorf("type=%s: the page after the first is %v, want the second client.created", tc.types, l)
			}
		}
	}

	// A cursor issued while the binding followed the spelling (bound to
	// "client.updated,client.created") still goes on with that spelling, and
	// the cursor it answers is bound to the set.
	key, err := database.Secret(context.Background(), env.Svc.DB, "cursor_hmac", 32)
	if err != nil {
		t.Fatal(err)
	}
	cs := storage.NewCursors(key)
	pos, err := cs.Decode(storage.ListScope("changes", a.OrgID(), "client.created,client.updated"), cursor)
	if err != nil {
		t.Fatalf("decoding the issued cursor: %v", err)
	}
	old := cs.Encode(storage.ListScope("changes", a.OrgID(), "client.updated,client.created"), pos)
	r := a.Get(feedPath + "?limit=1&type=client.updated,client.created&cursor=" + url.QueryEscape(old))
	if l := r.List(); r.Status != 200 || len(l) != 1 || l[0]["object_id"] == c1["id"] {
		t.Fatalf("a cursor bound to the spelling, with that spelling: %d %s, want the second client.created", r.Status, r.Body)
	}
	next, _ := r.JSON()["pagination"].(map[string]any)["next_cursor"].(string)
	if r := a.Get(feedPath + "?limit=1&type=client.created,client.updated&cursor=" + url.QueryEscape(next)); r.Status != 200 {
		t.Errorf("the cursor answered to an old one, with another order: %d %s", r.Status, r.Body)
	}
	if r := a.Get(feedPath + "?limit=1&type=client.created,client.updated&cursor=" + url.QueryEscape(old)); r.Status != 422 {
		t.Errorf("a cursor bound to one spelling, with another: %d %s, want 422", r.Status, r.Body)
	}
}
