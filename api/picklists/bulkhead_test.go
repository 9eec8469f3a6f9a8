package picklists_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestLargeReadsWaitForTheBulkhead: with one slot taken, a pick list's
// detail, a list with items and a PATCH (whose answer carries every item)
// wait for it (docs/architecture.md,
// "Memory"); a list without items does not; both answer once it is free.
func TestLargeReadsWaitForTheBulkhead(t *testing.T) {
	env := apitest.New(t, apitest.WithOneLargeReadSlot())
	a := env.NewOrg("A")
	pl := ok(t, a.Post(lists, body("name", "Stage left")), 201)["id"].(string)
	ok(t, a.Post(items, body("pick_list_id", pl, "custom_description", "case")), 201)

	release := env.HoldLargeReads()
	results := a.SendWhileHeld(t,
		func() *apitest.Response { return a.Get(lists + "/" + pl) },
		func() *apitest.Response { return a.Get(lists + "?expand=items") },
		func() *apitest.Response { return a.Patch(lists+"/"+pl, map[string]any{}) })
	if res := a.Get(lists); res.Status != 200 {
		t.Fatalf("list without items while the slot was held: %d %s", res.Status, res.Body)
	}
	for _, res := range apitest.ReleaseAndCollect(t, results, 3, release) {
		if res.Status != 200 {
			t.Fatalf("after the slot was freed: %d %s", res.Status, res.Body)
		}
	}
}

// TestKeyedLargeWritesWaitWithoutAConnection: keyed PATCHes of a pick
// list, a quote and an invoice (whose answers are built under the
// bulkhead) wait for a slot before the Idempotency-Key middleware opens
// their transaction, so none holds a pool connection while it waits. They
// waited inside it: enough of them held every connection, and the slot
// holders could not finish (docs/architecture.md, "Memory"). A replay and
// a key without the write scope do not wait at all.
func TestKeyedLargeWritesWaitWithoutAConnection(t *testing.T) {
	env := apitest.New(t, apitest.WithOneLargeReadSlot())
	a := env.NewOrg("A")
	pl := ok(t, a.Post(lists, body("name", "Stage left")), 201)["id"].(string)
	missing := uuid.NewString() // a quote and an invoice answer 404, once they have their slot
	keyed := func(path, key string) func() *apitest.Response {
		return func() *apitest.Response { return a.Do("PATCH", path, map[string]any{}, "Idempotency-Key", key) }
	}

	if res := keyed(lists+"/"+pl, "k-done")(); res.Status != 200 {
		t.Fatalf("keyed PATCH: %d %s", res.Status, res.Body)
	}
	readOnly := a.WithKey(apikey.Live, tenancy.PickListsRead)
	writeOnly := a.WithKey(apikey.Live, tenancy.PickListsWrite) // a PATCH needs a read scope too

	release := env.HoldLargeReads()
	// What needs no build answers at once, slot or not: a replay, and a
	// key the route refuses (they waited for a slot, and got 503 after 10 s).
	if res := keyed(lists+"/"+pl, "k-done")(); res.Status != 200 || res.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("a replay while the slot was held: %d, replayed %q", res.Status, res.Header.Get("Idempotent-Replayed"))
	}
	if res := readOnly.Do("PATCH", lists+"/"+pl, map[string]any{}, "Idempotency-Key", "k-refused"); res.Status != 403 {
		t.Fatalf("a key without pick_lists:write while the slot was held: %d %s, want 403", res.Status, res.Body)
	}
	if res := writeOnly.Do("PATCH", lists+"/"+pl, map[string]any{}, "Idempotency-Key", "k-write-only"); res.Status != 403 {
		t.Fatalf("a key without a read scope while the slot was held: %d %s, want 403", res.Status, res.Body)
	}
	results := a.SendWhileHeld(t, keyed(lists+"/"+pl, "k-pick"),
		keyed("/api/v2/quotes/"+missing, "k-quote"), keyed("/api/v2/invoices/"+missing, "k-invoice"))
	var waitingInTx int
	if err := env.Svc.DB.NewRaw(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
		AND state = 'idle in transaction' AND query LIKE 'SAVEPOINT%'`).Scan(context.Background(), &waitingInTx); err != nil {
		t.Fatal(err)
	}
	statuses := map[int]int{}
	for _, res := range apitest.ReleaseAndCollect(t, results, 3, release) {
		statuses[res.Status]++
	}
	if waitingInTx != 0 {
		t.Errorf("%d keyed writes held a transaction, and its connection, while waiting for the bulkhead", waitingInTx)
	}
	if statuses[200] != 1 || statuses[404] != 2 {
		t.Fatalf("after the slot was freed: statuses %v, want one 200 and two 404", statuses)
	}
	if res := keyed(lists+"/"+pl, "k-pick")(); res.Status != 200 || res.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the keyed PATCH again: %d, replayed %q; want its answer replayed", res.Status, res.Header.Get("Idempotent-Replayed"))
	}
}
