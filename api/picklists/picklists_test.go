package picklists_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/api/picklists"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

func TestPickListLifecycle(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	ev := rows.Event("Festival")
	cat := rows.Category("Audio", "#FF8800")
	eq := rows.Equipment("Line array", nil, &cat)

	pl := ok(t, a.Post(lists, body("name", "Main stage", "event_id", ev.String(), "notes", "dock 2")), 201)
	id := pl["id"].(string)
	for k, v := range map[string]any{"status": "draft", "archived": false, "event_id": ev.String(), "quote_id": nil, "demo": false, "notes": "dock 2"} {
		if pl[k] != v {
			t.Errorf("%s = %v, want %v", k, pl[k], v)
		}
	}
	if its, present := pl["items"].([]any); !present || len(its) != 0 {
		t.Errorf("items = %v", pl["items"])
	}

	it1 := ok(t, a.Post(items, body("pick_list_id", id, "equipment_id", eq.String(), "quantity", 4, "serial_numbers", []string{"LA-1", "LA-2"})), 201)
	if it1["stage"] != "pending" || it1["quantity"] != 4.0 || it1["pick_list_id"] != id {
		t.Errorf("item = %v", it1)
	}
	if sn, _ := it1["serial_numbers"].([]any); len(sn) != 2 || sn[1] != "LA-2" {
		t.Errorf("serial_numbers = %v", it1["serial_numbers"])
	}
	case1 := ok(t, a.Post(items, body("pick_list_id", id, "custom_description", "Road case A", "is_container", true)), 201)
	if case1["quantity"] != 1.0 || case1["equipment_id"] != nil || case1["serial_numbers"] != nil || case1["is_container"] != true {
		t.Errorf("custom item = %v", case1)
	}
	ok(t, a.Patch(items+"/"+it1["id"].(string), body("parent_item_id", case1["id"])), 200)

	// Detail: items always; equipment and category on request.
	d := ok(t, a.Get(lists+"/"+id), 200)
	if its := itemsOf(d); len(its) != 2 || its[0]["id"] != it1["id"] || its[0]["equipment"] != nil {
		t.Fatalf("detail items = %v", d["items"])
	} else if _, has := its[0]["equipment"]; has {
		t.Errorf("equipment without expand: %v", its[0])
	}
	d = ok(t, a.Get(lists+"/"+id+"?expand=equipment"), 200)
	e, _ := itemsOf(d)[0]["equipment"].(map[string]any)
	if e["name"] != "Line array" || e["category_id"] != cat.String() || e["case_length_in"] != 48.0 || e["daily_rate"] != 125.5 {
		t.Errorf("equipment = %v", e)
	}
	if _, has := e["category"]; has {
		t.Errorf("category without expand: %v", e)
	}
	if itemsOf(d)[1]["equipment"] != nil {
		t.Errorf("custom item equipment = %v", itemsOf(d)[1]["equipment"])
	}
	d = ok(t, a.Get(lists+"/"+id+"?expand=equipment,category,event"), 200)
	e, _ = itemsOf(d)[0]["equipment"].(map[string]any)
	if c, _ := e["category"].(map[string]any); c["name"] != "Audio" || c["color"] != "#FF8800" {
		t.Errorf("category = %v", e["category"])
	}
	if ev2, _ := d["event"].(map[string]any); ev2["name"] != "Festival" {
		t.Errorf("event = %v", d["event"])
	}
	// category without equipment has no effect on the detail.
	d = ok(t, a.Get(lists+"/"+id+"?expand=category"), 200)
	if _, has := itemsOf(d)[0]["equipment"]; has {
		t.Errorf("category alone expanded equipment")
	}

	// List: items only with expand=items, equipment only with items.
	l := a.Get(lists)
	if got := l.List(); len(got) != 1 || got[0]["items"] != nil {
		t.Fatalf("list = %s", l.Body)
	}
	if got := a.Get(lists + "?expand=equipment,category").List(); got[0]["items"] != nil {
		t.Errorf("equipment without items inlined items")
	}
	got := a.Get(lists + "?expand=items,equipment,category").List()
	its, _ := got[0]["items"].([]any)
	if len(its) != 2 {
		t.Fatalf("list items = %v", got[0]["items"])
	}
	first := its[0].(map[string]any)
	if eq, _ := first["equipment"].(map[string]any); eq["category"] == nil {
		t.Errorf("list category = %v", first)
	}

	// Status flow.
	p := ok(t, a.Patch(lists+"/"+id, body("status", "in_progress", "name", "Main stage v2")), 200)
	if p["status"] != "in_progress" || p["name"] != "Main stage v2" || p["updated_at"] == pl["updated_at"] || len(itemsOf(p)) != 2 {
		t.Errorf("patch = %v", p)
	}
	same := ok(t, a.Patch(lists+"/"+id, body("status", "in_progress")), 200)
	if same["updated_at"] != p["updated_at"] {
		t.Errorf("no-op patch changed updated_at")
	}
	res := a.Patch(lists+"/"+id, body("status", "draft"))
	want(t, res, 422, "invalid_transition")
	if dd := errDetails(res); dd["from"] != "in_progress" || dd["to"] != "draft" || len(dd["allowed"].([]any)) != 2 {
		t.Errorf("details = %v", dd)
	}
	ok(t, a.Patch(lists+"/"+id, body("status", "packed")), 200)
	ok(t, a.Patch(lists+"/"+id, body("status", "complete", "archived", true)), 200)
	want(t, a.Patch(lists+"/"+id, body("status", "packed")), 422, "invalid_transition")

	// Archived lists leave the default list.
	if n := len(a.Get(lists).List()); n != 0 {
		t.Errorf("archived list still listed: %d", n)
	}
	if n := len(a.Get(lists + "?archived=true").List()); n != 1 {
		t.Errorf("archived=true: %d", n)
	}

	// Deleting an item: its child loses the parent, and that is a change
	// of the child, which moves its updated_at and is in the feed.
	before := itemsOf(ok(t, a.Get(lists+"/"+id), 200))
	if len(before) != 2 || (before[0]["parent_item_id"] == nil) == (before[1]["parent_item_id"] == nil) {
		t.Fatalf("before delete: %v, want an item and its child", before)
	}
	child := before[0]
	if child["parent_item_id"] == nil {
		child = before[1]
	}
	if res := a.Delete(items + "/" + case1["id"].(string)); res.Status != 204 {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	want(t, a.Delete(items+"/"+case1["id"].(string)), 404, "not_found")
	after := itemsOf(ok(t, a.Get(lists+"/"+id), 200))
	if len(after) != 1 || after[0]["parent_item_id"] != nil || after[0]["id"] != child["id"] {
		t.Fatalf("after delete: %v", after)
	}
	if after[0]["updated_at"].(string) <= child["updated_at"].(string) {
		t.Errorf("the orphaned child's updated_at stayed %v (was %v)", after[0]["updated_at"], child["updated_at"])
	}
	// The feed lists a change once every transaction that began before it
	// has ended: wait for the child's change without its parent.
	var last map[string]any
	for deadline := time.Now().Add(30 * time.Second); last == nil || last["parent_item_id"] != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the feed's last change of the child is %v after 30 s, want one without its parent", last)
		}
		for _, ch := range a.Get("/api/v2/changes?type=pick_list_item.updated&limit=100").List() {
			if d, _ := ch["data"].(map[string]any); d["id"] == child["id"] {
				last = d
			}
		}
	}
	if last["updated_at"] != after[0]["updated_at"] {
		t.Errorf("the feed's last change of the child is %v, want the item as GET renders it: %v", last, after[0])
	}
}

func TestStatusTransitions(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	allowed := map[string][]string{"draft": {"in_progress"}, "in_progress": {"packed", "complete"}, "packed": {"complete"}, "complete": {}}
	path := map[string][]string{"draft": nil, "in_progress": {"in_progress"}, "packed": {"in_progress", "packed"}, "complete": {"in_progress", "complete"}}
	for from, moves := range path {
		for _, to := range []string{"draft", "in_progress", "packed", "complete"} {
			id := ok(t, a.Post(lists, body("name", from+"→"+to)), 201)["id"].(string)
			for _, m := range moves {
				ok(t, a.Patch(lists+"/"+id, body("status", m)), 200)
			}
			res := a.Patch(lists+"/"+id, body("status", to))
			legal := from == to
			for _, x := range allowed[from] {
				legal = legal || x == to
			}
			if legal && res.Status != 200 {
				t.Errorf("%s → %s: %d %s", from, to, res.Status, res.Body)
			}
			if !legal && res.ErrorCode() != "invalid_transition" {
				t.Errorf("%s → %s: %d %s, want invalid_transition", from, to, res.Status, res.Body)
			}
		}
	}
}

func TestItemStages(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	pl := ok(t, a.Post(lists, body("name", "Stages")), 201)["id"].(string)
	it := ok(t, a.Post(items, body("pick_list_id", pl, "custom_description", "Cable trunk", "stage", "checked")), 201)
	id := it["id"].(string)
	// Forward may skip stages.
	if p := ok(t, a.Patch(items+"/"+id, body("stage", "loaded", "quantity", 2, "notes", "truck 1")), 200); p["stage"] != "loaded" || p["quantity"] != 2.0 {
		t.Fatalf("forward: %v", p)
	}
	ok(t, a.Patch(items+"/"+id, body("stage", "loaded")), 200)
	res := a.Patch(items+"/"+id, body("stage", "staged"))
	want(t, res, 422, "invalid_transition")
	d := errDetails(res)
	if d["from"] != "loaded" || d["to"] != "staged" || len(d["allowed"].([]any)) != 2 {
		t.Errorf("details = %v", d)
	}
	ok(t, a.Patch(items+"/"+id, body("stage", "installed")), 200)
	want(t, a.Patch(items+"/"+id, body("stage", "pending")), 422, "invalid_transition")
}

func TestItemRulesAndBadInput(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	b := env.NewOrg("B")
	rows := bookingtest.For(env, a)
	brows := bookingtest.For(env, b)
	eq := rows.Equipment("Mic", nil, nil).String()
	foreignEq := brows.Equipment("B mic", nil, nil).String()
	pl := ok(t, a.Post(lists, body("name", "One")), 201)["id"].(string)
	other := ok(t, a.Post(lists, body("name", "Two")), 201)["id"].(string)
	foreignPL := ok(t, b.Post(lists, body("name", "B list")), 201)["id"].(string)
	otherItem := ok(t, a.Post(items, body("pick_list_id", other, "equipment_id", eq)), 201)["id"].(string)
	foreignItem := ok(t, b.Post(items, body("pick_list_id", foreignPL, "equipment_id", foreignEq)), 201)["id"].(string)
	const missing = "3f1c2a9e-0000-4000-8000-000000000000"
	before := rows.Count("pick_list_items")

	tests := []struct {
		name   string
		body   any
		status int
		code   string
		field  string
	}{
		{"not json", "{", 400, "malformed_json", ""},
		{"string body", `"x"`, 422, "validation_error", "body"},
		{"no pick list", body("equipment_id", eq), 422, "validation_error", "pick_list_id"},
		{"neither equipment nor description", body("pick_list_id", pl), 422, "validation_error", "equipment_id"},
		{"empty description", body("pick_list_id", pl, "custom_description", "  "), 422, "validation_error", "equipment_id"},
		{"bad pick list uuid", body("pick_list_id", "x", "equipment_id", eq), 422, "validation_error", "pick_list_id"},
		{"unknown pick list", body("pick_list_id", missing, "equipment_id", eq), 422, "validation_error", "pick_list_id"},
		{"foreign pick list", body("pick_list_id", foreignPL, "equipment_id", eq), 422, "validation_error", "pick_list_id"},
		{"foreign equipment", body("pick_list_id", pl, "equipment_id", foreignEq), 422, "validation_error", "equipment_id"},
		{"foreign both", body("pick_list_id", foreignPL, "equipment_id", foreignEq), 422, "validation_error", "pick_list_id,equipment_id"},
		{"parent on other list", body("pick_list_id", pl, "equipment_id", eq, "parent_item_id", otherItem), 422, "validation_error", "parent_item_id"},
		{"foreign parent", body("pick_list_id", pl, "equipment_id", eq, "parent_item_id", foreignItem), 422, "validation_error", "parent_item_id"},
		{"quantity zero", body("pick_list_id", pl, "equipment_id", eq, "quantity", 0), 422, "validation_error", "quantity"},
		{"bad stage", body("pick_list_id", pl, "equipment_id", eq, "stage", "lost"), 422, "validation_error", "stage"},
		{"serials not array", body("pick_list_id", pl, "equipment_id", eq, "serial_numbers", "A1"), 422, "validation_error", "serial_numbers"},
		{"serials numbers", body("pick_list_id", pl, "equipment_id", eq, "serial_numbers", []int{1}), 422, "validation_error", "serial_numbers[0]"},
		{"serial with NUL and a null serial", body("pick_list_id", pl, "custom_description", "x", "serial_numbers", []any{"a\u0000b", nil}), 422, "validation_error", "serial_numbers[0],serial_numbers[1]"},
		{"serial too long", body("pick_list_id", pl, "equipment_id", eq, "serial_numbers", []string{"ok", strings.Repeat("s", 101)}), 422, "validation_error", "serial_numbers[1]"},
		{"too many serials", body("pick_list_id", pl, "equipment_id", eq, "serial_numbers", make([]string, 501)), 422, "validation_error", "serial_numbers"},
		{"blank serials", body("pick_list_id", pl, "equipment_id", eq, "serial_numbers", []string{"SN1", "  ", "\u200b", ""}), 422, "validation_error", "serial_numbers[1],serial_numbers[2],serial_numbers[3]"},
		{"a serial twice", body("pick_list_id", pl, "equipment_id", eq, "serial_numbers", []string{"SN1", "SN2", " SN1 "}), 422, "validation_error", "serial_numbers[2]"},
		{"100 kB notes", body("pick_list_id", pl, "equipment_id", eq, "notes", strings.Repeat("n", 100_000)), 422, "validation_error", "notes"},
		{"is_container string", body("pick_list_id", pl, "equipment_id", eq, "is_container", "yes"), 422, "validation_error", "is_container"},
		{"unknown field", body("pick_list_id", pl, "equipment_id", eq, "size", 3), 422, "validation_error", "size"},
		{"read-only", body("pick_list_id", pl, "equipment_id", eq, "id", missing), 422, "validation_error", "id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := a.Post(items, tt.body)
			want(t, res, tt.status, tt.code)
			if tt.field != "" && fields(res) != tt.field {
				t.Errorf("fields = %q, want %q", fields(res), tt.field)
			}
			if n := rows.Count("pick_list_items"); n != before {
				t.Fatalf("%d items, want %d", n, before)
			}
		})
	}

	// PATCH rules.
	parent := ok(t, a.Post(items, body("pick_list_id", pl, "custom_description", "Case")), 201)["id"].(string)
	child := ok(t, a.Post(items, body("pick_list_id", pl, "equipment_id", eq, "parent_item_id", parent)), 201)["id"].(string)
	patches := []struct {
		name, id string
		body     any
		code     string
	}{
		{"cycle", parent, body("parent_item_id", child), "validation_error"},
		{"self parent", parent, body("parent_item_id", parent), "validation_error"},
		{"move list beside a bad stage", child, body("pick_list_id", other, "stage", "lost"), "validation_error"},
		{"foreign equipment", child, body("equipment_id", foreignEq), "validation_error"},
		{"drop both", parent, body("custom_description", nil), "validation_error"},
		{"null quantity", child, body("quantity", nil), "validation_error"},
		{"null stage", child, body("stage", nil), "validation_error"},
		{"serial with NUL", child, body("serial_numbers", []any{"a\u0000b"}), "validation_error"},
		{"null serial", child, body("serial_numbers", []any{"LA-1", nil}), "validation_error"},
	}
	for _, tt := range patches {
		t.Run("patch "+tt.name, func(t *testing.T) {
			before := string(a.Get(lists + "/" + pl).Body)
			want(t, a.Patch(items+"/"+tt.id, tt.body), 422, tt.code)
			if after := string(a.Get(lists + "/" + pl).Body); after != before {
				t.Fatalf("changed:\n%s\n%s", before, after)
			}
		})
	}
	// Replacing equipment by a description on one PATCH is fine.
	if p := ok(t, a.Patch(items+"/"+child, body("equipment_id", nil, "custom_description", "Spare mic", "serial_numbers", []string{})), 200); p["equipment_id"] != nil {
		t.Errorf("patch = %v", p)
	} else if sn, isList := p["serial_numbers"].([]any); !isList || len(sn) != 0 {
		t.Errorf("serial_numbers = %v", p["serial_numbers"])
	}
	want(t, a.Patch(items+"/"+missing, body("quantity", 2)), 404, "not_found")
	want(t, a.Patch(items+"/nope", body("quantity", 2)), 404, "not_found")
}

func TestPickListBadInput(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	b := env.NewOrg("B")
	rows := bookingtest.For(env, a)
	foreignEvent := bookingtest.For(env, b).Event("B show").String()
	const missing = "3f1c2a9e-0000-4000-8000-000000000000"
	tests := []struct {
		name  string
		body  any
		field string
	}{
		{"no name", body("notes", "x"), "name"},
		{"blank name", body("name", " "), "name"},
		{"long name", body("name", strings.Repeat("n", 201)), "name"},
		{"status on create", body("name", "x", "status", "in_progress"), "status"},
		{"foreign event", body("name", "x", "event_id", foreignEvent), "event_id"},
		{"unknown quote", body("name", "x", "quote_id", missing), "quote_id"},
		{"bad event uuid", body("name", "x", "event_id", 12), "event_id"},
		{"unknown", body("name", "x", "colour", "red"), "colour"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := a.Post(lists, tt.body)
			want(t, res, 422, "validation_error")
			if fields(res) != tt.field {
				t.Errorf("fields = %q, want %q", fields(res), tt.field)
			}
			if n := rows.Count("pick_lists"); n != 0 {
				t.Fatalf("%d pick lists written", n)
			}
		})
	}
	id := ok(t, a.Post(lists, body("name", "x")), 201)["id"].(string)
	for name, bd := range map[string]any{"bad status": body("status", "done"), "event change beside a bad status": body("event_id", nil, "status", "done"),
		"archived null": body("archived", nil), "name null": body("name", nil), "items beside a null name": body("items", []any{}, "name", nil)} {
		if res := a.Patch(lists+"/"+id, bd); res.Status != 422 {
			t.Errorf("%s: %d %s", name, res.Status, res.Body)
		}
	}
	for _, q := range []string{"?event_id=x", "?status=done", "?archived=maybe", "?expand=vehicle", "?limit=0", "?cursor=zz"} {
		want(t, a.Get(lists+q), 422, "validation_error")
	}
	want(t, a.Get(lists+"/"+id+"?expand=client"), 422, "validation_error")
	want(t, a.Get(lists+"/"+missing), 404, "not_found")
}

func TestPickListScopes(t *testing.T) {
	env := newEnv(t)
	owner := env.NewOrg("A")
	id := ok(t, owner.Post(lists, body("name", "x")), 201)["id"].(string)
	for _, s := range []tenancy.Scope{tenancy.PickListsRead, tenancy.EventsRead, tenancy.JobsRead} {
		k := *owner
		k.Key = env.NewKey(owner.ID, apikey.Live, s)
		if res := k.Get(lists + "/" + id); res.Status != 200 {
			t.Errorf("%s: %d", s, res.Status)
		}
		if res := k.Get(lists); res.Status != 200 {
			t.Errorf("%s list: %d", s, res.Status)
		}
		want(t, k.Patch(lists+"/"+id, body("name", "y")), 403, "insufficient_scope")
		want(t, k.Post(items, body("pick_list_id", id, "custom_description", "x")), 403, "insufficient_scope")
	}
	w := *owner
	w.Key = env.NewKey(owner.ID, apikey.Live, tenancy.PickListsWrite)
	want(t, w.Get(lists), 403, "insufficient_scope")
	ok(t, w.Post(items, body("pick_list_id", id, "custom_description", "x")), 201)
}

// queryCounter counts the SQL queries run on a database through bun.
type queryCounter struct{ n atomic.Int64 }

func (q *queryCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}
func (q *queryCounter) AfterQuery(context.Context, *bun.QueryEvent) { q.n.Add(1) }

func TestNoNPlusOne(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	cat := rows.Category("Lighting", "#00AA00")
	n := picklists.MaxExpandedLists // a page with items holds at most so many
	for range n {
		pl := ok(t, a.Post(lists, body("name", "L")), 201)["id"].(string)
		for j := 0; j < 3; j++ {
			eq := rows.Equipment("E", nil, &cat).String()
			ok(t, a.Post(items, body("pick_list_id", pl, "equipment_id", eq)), 201)
		}
	}
	counter := &queryCounter{}
	// The service's handlers hold env.Svc.DB itself: the hooked copy
	// replaces it in place so that they run the hook.
	*env.Svc.DB = *env.Svc.DB.WithQueryHook(counter)
	// The page and the expansions sent with real parameters bypass bun's
	// hooks; count them too.
	storage.AddStatementHook(env.Svc.DB, func(context.Context, string) { counter.n.Add(1) })
	queries := func(limit int) int64 {
		before := counter.n.Load()
		got := a.Get(fmt.Sprintf("%s?limit=%d&expand=items,equipment,category,event", lists, limit)).List()
		if len(got) != limit {
			t.Fatalf("%d lists, want %d", len(got), limit)
		}
		for _, l := range got {
			its, _ := l["items"].([]any)
			if len(its) != 3 {
				t.Fatalf("items = %v", l["items"])
			}
			for _, it := range its {
				eq, _ := it.(map[string]any)["equipment"].(map[string]any)
				if c, _ := eq["category"].(map[string]any); c["id"] != cat.String() {
					t.Fatalf("item = %v", it)
				}
			}
		}
		return counter.n.Load() - before
	}
	queries(1) // the key's first use is looked up and recorded
	one, many := queries(1), queries(n)
	if one == 0 || one != many {
		t.Fatalf("1 list took %d queries, %d lists took %d", one, n, many)
	}
}
