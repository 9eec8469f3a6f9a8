package reservations_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/tenancy"
)

func details(res *apitest.Response) map[string]any {
	e, _ := res.JSON()["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return d
}

func TestStockGuardBlocks(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eq := rows.Equipment("Moving head", bookingtest.Stock(4), nil)
	ev1, ev2, ev3 := rows.Event("One"), rows.Event("Two"), rows.Event("Three")

	first := a.Post(base, reserve(eq, 1, 5, "event_id", ev1.String(), "quantity", 3))
	if first.Status != 201 {
		t.Fatalf("%d %s", first.Status, first.Body)
	}
	firstID := first.Data()["id"].(string)

	// 3 of 4 are held over days 1-5: asking 2 overlapping is blocked.
	res := a.Post(base, reserve(eq, 4, 6, "event_id", ev2.String(), "quantity", 2))
	want(t, res, 422, "overbook_blocked")
	d := details(res)
	if d["requested"] != 2.0 || d["available"] != 1.0 || d["deficit"] != 1.0 ||
		d["window_start"] != "2026-05-04T08:00:00Z" || d["window_end"] != "2026-05-06T08:00:00Z" {
		t.Errorf("details = %v", d)
	}
	if ids, _ := d["conflicting_reservation_ids"].([]any); len(ids) != 1 || ids[0] != firstID {
		t.Errorf("conflicting_reservation_ids = %v", d["conflicting_reservation_ids"])
	}
	if ids, _ := d["conflicting_event_ids"].([]any); len(ids) != 1 || ids[0] != ev1.String() {
		t.Errorf("conflicting_event_ids = %v", d["conflicting_event_ids"])
	}
	if rw, _ := d["retry_with"].(map[string]any); rw["force_overbook"] != true || rw["overbook_reason"] == nil {
		t.Errorf("retry_with = %v", d["retry_with"])
	}
	if n := rows.Count("equipment_reservations"); n != 1 {
		t.Fatalf("%d reservations after a blocked one", n)
	}

	// Windows that only touch ([1,5) and [5,6)) do not overlap.
	if res := a.Post(base, reserve(eq, 5, 6, "event_id", ev2.String(), "quantity", 4)); res.Status != 201 {
		t.Fatalf("adjacent window: %d %s", res.Status, res.Body)
	}
	// One is still free in [1,5).
	if res := a.Post(base, reserve(eq, 2, 3, "event_id", ev3.String(), "quantity", 1)); res.Status != 201 {
		t.Fatalf("exactly available: %d %s", res.Status, res.Body)
	}

	// Forced: stored and returned as overbooked, with the reason.
	forced := a.Post(base, reserve(eq, 1, 2, "quantity", 2, "force_overbook", true,
		"overbook_reason", "client upgrade", "overbook_cost_ownership", "new_customer"))
	if forced.Status != 201 {
		t.Fatalf("forced: %d %s", forced.Status, forced.Body)
	}
	f := forced.Data()
	if f["overbooked"] != true || f["overbook_reason"] != "client upgrade" || f["overbook_cost_ownership"] != "new_customer" {
		t.Errorf("forced = %v", f)
	}
	if g := a.Get(base + "/" + f["id"].(string)).Data(); g["overbooked"] != true || g["overbook_reason"] != "client upgrade" {
		t.Errorf("stored forced = %v", g)
	}

	// Cancelling frees stock; a patch that only cancels never blocks.
	if p := a.Patch(base+"/"+f["id"].(string), body("reservation_status", "cancelled")); p.Status != 200 {
		t.Fatalf("cancel forced: %d %s", p.Status, p.Body)
	}
	if p := a.Patch(base+"/"+firstID, body("reservation_status", "returned")); p.Status != 200 {
		t.Fatalf("return: %d %s", p.Status, p.Body)
	}
	if res := a.Post(base, reserve(eq, 1, 5, "quantity", 3)); res.Status != 201 {
		t.Fatalf("after returns: %d %s", res.Status, res.Body)
	}
	// Moving the returned reservation back to reserved needs stock again.
	want(t, a.Patch(base+"/"+firstID, body("reservation_status", "reserved")), 422, "overbook_blocked")
}

func TestPatchStockGuard(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eq := rows.Equipment("Console", bookingtest.Stock(5), nil)
	other := rows.Equipment("Other console", bookingtest.Stock(1), nil)
	r1 := a.Post(base, reserve(eq, 1, 5, "quantity", 3)).Data()["id"].(string)
	r2 := a.Post(base, reserve(eq, 1, 5, "quantity", 2)).Data()["id"].(string)

	// The patched reservation is left out of the sum: 3 → 3 with a new note is fine.
	if p := a.Patch(base+"/"+r1, body("quantity", 3, "notes", "same")); p.Status != 200 {
		t.Fatalf("%d %s", p.Status, p.Body)
	}
	res := a.Patch(base+"/"+r1, body("quantity", 4))
	want(t, res, 422, "overbook_blocked")
	if d := details(res); d["available"] != 3.0 || d["deficit"] != 1.0 {
		t.Errorf("details = %v", d)
	}
	// Widening the window into free days is fine; moving it to other equipment is checked there.
	if p := a.Patch(base+"/"+r2, body("end_date", "2026-05-07T08:00:00Z")); p.Status != 200 {
		t.Fatalf("%d %s", p.Status, p.Body)
	}
	want(t, a.Patch(base+"/"+r2, body("equipment_id", other.String())), 422, "overbook_blocked")
	want(t, a.Patch(base+"/"+r1, body("quantity", 4, "force_overbook", true)), 422, "overbook_reason_required")
	p := a.Patch(base+"/"+r1, body("quantity", 4, "force_overbook", true, "overbook_reason", "extra for encore"))
	if p.Status != 200 || p.Data()["overbooked"] != true || p.Data()["overbook_reason"] != "extra for encore" {
		t.Fatalf("forced patch: %d %s", p.Status, p.Body)
	}
	// Shrinking an overbooked reservation never blocks; once it fits it is no longer overbooked.
	if p := a.Patch(base+"/"+r1, body("quantity", 3)); p.Status != 200 || p.Data()["overbooked"] != false || p.Data()["overbook_reason"] != nil {
		t.Fatalf("shrink: %d %s", p.Status, p.Body)
	}
}

func TestStockGuardModes(t *testing.T) {
	env := newEnv(t)
	warn := orgWithMode(t, env, "Warn", tenancy.StockGuardWarn)
	off := orgWithMode(t, env, "Off", tenancy.StockGuardOff)
	for _, o := range []*apitest.Org{warn, off} {
		eq := bookingtest.For(env, o).Equipment("Sub", bookingtest.Stock(1), nil)
		if res := o.Post(base, reserve(eq, 1, 3)); res.Status != 201 {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
		res := o.Post(base, reserve(eq, 2, 4, "quantity", 2))
		if res.Status != 201 {
			t.Fatalf("over stock: %d %s", res.Status, res.Body)
		}
		warnings, hasWarnings := res.JSON()["warnings"].([]any)
		if o == off {
			if hasWarnings || res.Data()["overbooked"] != false {
				t.Errorf("off mode: %s", res.Body)
			}
			continue
		}
		if len(warnings) != 1 || res.Data()["overbooked"] != true {
			t.Fatalf("warn mode: %s", res.Body)
		}
		w := warnings[0].(map[string]any)
		d, _ := w["details"].(map[string]any)
		if w["code"] != "overbooked" || d["requested"] != 2.0 || d["available"] != 0.0 || d["deficit"] != 2.0 {
			t.Errorf("warning = %v", w)
		}
		// force_overbook still needs its reason in every mode.
		want(t, o.Post(base, reserve(eq, 5, 6, "force_overbook", true)), 422, "overbook_reason_required")
	}
	// Unlimited stock is never guarded.
	a := env.NewOrg("A")
	eq := bookingtest.For(env, a).Equipment("Cable", nil, nil)
	if res := a.Post(base, reserve(eq, 1, 2, "quantity", 1000)); res.Status != 201 || res.Data()["overbooked"] != false {
		t.Fatalf("unlimited: %d %s", res.Status, res.Body)
	}
}

func TestOneReservationPerEquipmentAndEvent(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eq, ev, ev2 := rows.Equipment("Projector", nil, nil), rows.Event("Gala"), rows.Event("Expo")
	first := a.Post(base, reserve(eq, 1, 2, "event_id", ev.String()))
	id := first.Data()["id"].(string)
	dup := a.Post(base, reserve(eq, 3, 4, "event_id", ev.String()))
	want(t, dup, 409, "duplicate_record")
	if details(dup)["existing_id"] != id {
		t.Errorf("existing_id = %v, want %s", details(dup)["existing_id"], id)
	}
	// Moving another reservation onto the pair is the same conflict.
	other := a.Post(base, reserve(eq, 1, 2, "event_id", ev2.String())).Data()["id"].(string)
	p := a.Patch(base+"/"+other, body("event_id", ev.String()))
	want(t, p, 409, "duplicate_record")
	if details(p)["existing_id"] != id {
		t.Errorf("patch existing_id = %v", details(p)["existing_id"])
	}
	// A cancelled reservation does not hold the pair.
	if p := a.Patch(base+"/"+id, body("reservation_status", "cancelled")); p.Status != 200 {
		t.Fatalf("%d %s", p.Status, p.Body)
	}
	again := a.Post(base, reserve(eq, 3, 4, "event_id", ev.String()))
	if again.Status != 201 {
		t.Fatalf("after cancel: %d %s", again.Status, again.Body)
	}
	// Un-cancelling the first would make two.
	want(t, a.Patch(base+"/"+id, body("reservation_status", "reserved")), 409, "duplicate_record")
}

// TestStockNeverOversoldAcrossInstances makes the race of the stock guard
// happen on every run instead of by chance: the test's own transaction holds
// a share lock on the equipment row, so every create through either instance
// reaches its critical point (check stock, then write) while the others are
// in flight. The guard's row lock must make each of them wait there: the test
// waits until all of them are seen blocked on a lock in pg_stat_activity, and
// fails at once if one answers while the row is held (a guard without the
// lock, or with a lock that does not conflict). Then the row is released and
// exactly the stock is booked; every other request is blocked. A guard that
// locks after reading the sum lets all of them read an empty window and
// oversells, which the second half catches.
func TestStockNeverOversoldAcrossInstances(t *testing.T) {
	env := newEnv(t)
	replica := env.Replica()
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	const stock, perRequest, requests = 4, 2, 6
	eq := rows.Equipment("Follow spot", bookingtest.Stock(stock), nil)
	events := make([]uuid.UUID, requests)
	for i := range events {
		events[i] = rows.Event("Show")
	}

	type answer struct {
		i      int
		status int
		code   string
	}
	answers := make(chan answer, requests)
	instances := []*apitest.Org{a, a.Via(replica)}
	var inFlight sync.WaitGroup
	// On failure the row is released and every request finishes before the
	// apps shut down (cleanups run last-registered first).
	t.Cleanup(inFlight.Wait)
	// FOR SHARE conflicts with the guard's FOR NO KEY UPDATE but not with the
	// FOR KEY SHARE that inserting a reservation (foreign key) takes.
	release := apitest.HoldRowLock(t, env, "/* every organization: the test's own row lock */ SELECT 1 FROM equipment WHERE id = ? FOR SHARE", eq)
	for i := 0; i < requests; i++ {
		inFlight.Add(1)
		go func(i int) {
			defer inFlight.Done()
			// Every pair of windows shares day 3. Every third request carries
			// an Idempotency-Key, so it runs in the request's transaction.
			var headers []string
			if i%3 == 0 {
				headers = []string{"Idempotency-Key", uuid.NewString()}
			}
			res := instances[i%2].Do("POST", base, reserve(eq, 1+i%2, 4+i%3,
				"event_id", events[i].String(), "quantity", perRequest), headers...)
			answers <- answer{i, res.Status, res.ErrorCode()}
		}(i)
	}

	// Every request must be waiting on a lock before the row is released.
	apitest.WaitBlocked(t, env, requests, answers, "the equipment row")
	release()

	created, blocked := 0, 0
	for range requests {
		a := <-answers
		switch {
		case a.status == 201:
			created++
		case a.status == 422 && a.code == "overbook_blocked":
			blocked++
		default:
			t.Errorf("request %d: %d %s", a.i, a.status, a.code)
		}
	}
	if created != stock/perRequest || blocked != requests-stock/perRequest {
		t.Fatalf("created %d, blocked %d; want %d and %d", created, blocked, stock/perRequest, requests-stock/perRequest)
	}
	var held int
	if err := env.Svc.DB.NewRaw(`SELECT coalesce(sum(quantity), 0) FROM equipment_reservations
		WHERE organization_id = ? AND equipment_id = ? AND reservation_status IN ('reserved', 'checked_out')`,
		a.ID, eq).Scan(context.Background(), &held); err != nil {
		t.Fatal(err)
	}
	if held != stock {
		t.Fatalf("%d held in the database, stock is %d", held, stock)
	}
}

// TestIdempotentCreate replays a create with the same Idempotency-Key: the
// same answer comes back and one reservation exists, and a blocked create
// replays as blocked.
func TestIdempotentCreate(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eq := rows.Equipment("Hazer", bookingtest.Stock(1), nil)
	b := reserve(eq, 1, 2)
	first := a.Do("POST", base, b, "Idempotency-Key", "create-hazer")
	again := a.Do("POST", base, b, "Idempotency-Key", "create-hazer")
	if first.Status != 201 || again.Status != 201 || string(first.Body) != string(again.Body) {
		t.Fatalf("replay: %d %s / %d %s", first.Status, first.Body, again.Status, again.Body)
	}
	if n := rows.Count("equipment_reservations"); n != 1 {
		t.Fatalf("%d reservations after a replay", n)
	}
	blocked := a.Do("POST", base, reserve(eq, 1, 2, "quantity", 1), "Idempotency-Key", "second-hazer")
	want(t, blocked, 422, "overbook_blocked")
	want(t, a.Do("POST", base, reserve(eq, 1, 2, "quantity", 1), "Idempotency-Key", "second-hazer"), 422, "overbook_blocked")
	if n := rows.Count("equipment_reservations"); n != 1 {
		t.Fatalf("%d reservations after blocked creates", n)
	}
}

// TestPatchRestatesAnOverbook: a PATCH that only sends the override fields
// of an overbooked reservation stores the new reason and cost ownership
// (the caller re-states why it is over stock); the same fields on a
// reservation within stock store nothing and are named in ignored_fields,
// never answered as if they were written.
func TestPatchRestatesAnOverbook(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eq := rows.Equipment("Mixer", bookingtest.Stock(1), nil)
	over := a.Post(base, reserve(eq, 1, 2, "quantity", 3, "force_overbook", true,
		"overbook_reason", "big show", "overbook_cost_ownership", "absorbed")).Data()["id"].(string)

	p := a.Patch(base+"/"+over, body("force_overbook", true, "overbook_reason", "client pays the sub-hire",
		"overbook_cost_ownership", "new_customer"))
	if p.Status != 200 || p.Data()["overbook_reason"] != "client pays the sub-hire" ||
		p.Data()["overbook_cost_ownership"] != "new_customer" || p.Data()["overbooked"] != true {
		t.Fatalf("re-stated override: %d %s", p.Status, p.Body)
	}
	if p.JSON()["warnings"] != nil {
		t.Errorf("a stored override is not ignored: %s", p.Body)
	}
	if g := a.Get(base + "/" + over).Data(); g["overbook_reason"] != "client pays the sub-hire" {
		t.Errorf("not stored: %v", g)
	}
	// A reason alone, without force_overbook, re-states nothing.
	p = a.Patch(base+"/"+over, body("overbook_reason", "a reason alone"))
	if p.Status != 200 || p.Data()["overbook_reason"] != "client pays the sub-hire" || !ignored(p, "overbook_reason") {
		t.Fatalf("reason without force: %d %s", p.Status, p.Body)
	}

	fits := rows.Equipment("Spare mixer", bookingtest.Stock(5), nil)
	ok := a.Post(base, reserve(fits, 1, 2, "quantity", 1)).Data()["id"].(string)
	p = a.Patch(base+"/"+ok, body("force_overbook", true, "overbook_reason", "just in case", "notes", "n"))
	if p.Status != 200 || p.Data()["overbooked"] != false || p.Data()["overbook_reason"] != nil || p.Data()["notes"] != "n" ||
		!ignored(p, "force_overbook", "overbook_reason") {
		t.Fatalf("override within stock: %d %s", p.Status, p.Body)
	}
}

// TestShrinkLeavesTheOverbookAsRecorded: a PATCH that asks for no more stock
// makes no new decision, so a reservation that stock was lowered under is
// not marked overbooked by shrinking (block mode stores overbooked only with
// a reason), and a forced one keeps its flag and reason.
func TestShrinkLeavesTheOverbookAsRecorded(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eq := rows.Equipment("Dimmer rack", bookingtest.Stock(5), nil)
	fitted := a.Post(base, reserve(eq, 1, 2, "quantity", 3)).Data()["id"].(string)
	if p := a.Patch("/api/v2/equipment/"+eq.String(), body("stock_quantity", 1)); p.Status != 200 {
		t.Fatalf("lower stock: %d %s", p.Status, p.Body)
	}
	p := a.Patch(base+"/"+fitted, body("quantity", 2))
	if p.Status != 200 || p.Data()["overbooked"] != false || p.Data()["overbook_reason"] != nil {
		t.Fatalf("shrink under lowered stock: %d %s", p.Status, p.Body)
	}

	forced := a.Post(base, reserve(eq, 3, 4, "quantity", 4, "force_overbook", true, "overbook_reason", "tour")).Data()["id"].(string)
	p = a.Patch(base+"/"+forced, body("quantity", 3))
	if p.Status != 200 || p.Data()["overbooked"] != true || p.Data()["overbook_reason"] != "tour" {
		t.Fatalf("shrink of a forced overbook: %d %s", p.Status, p.Body)
	}
}

// TestCreateNamesAnUnstoredOverride: a POST whose override has nothing to
// justify (the reservation fits stock, or a reason comes without
// force_overbook) names those fields in ignored_fields, as a PATCH does.
func TestCreateNamesAnUnstoredOverride(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eq := rows.Equipment("Truss", bookingtest.Stock(5), nil)
	p := a.Post(base, reserve(eq, 1, 2, "quantity", 1, "force_overbook", true, "overbook_reason", "just in case",
		"overbook_cost_ownership", "absorbed"))
	if p.Status != 201 || p.Data()["overbooked"] != false ||
		!ignored(p, "force_overbook", "overbook_cost_ownership", "overbook_reason") {
		t.Fatalf("override within stock: %d %s", p.Status, p.Body)
	}
	other := rows.Equipment("Truss base", bookingtest.Stock(5), nil)
	p = a.Post(base, reserve(other, 1, 2, "quantity", 1, "overbook_reason", "a reason alone"))
	if p.Status != 201 || !ignored(p, "overbook_reason") {
		t.Fatalf("reason without force: %d %s", p.Status, p.Body)
	}
	p = a.Post(base, reserve(other, 3, 4, "quantity", 6, "force_overbook", true, "overbook_reason", "sub-hire"))
	if p.Status != 201 || p.Data()["overbooked"] != true || p.JSON()["warnings"] != nil {
		t.Fatalf("a stored override is not ignored: %d %s", p.Status, p.Body)
	}
}

// ignored reports whether res warns that exactly fields were ignored.
func ignored(res *apitest.Response, fields ...string) bool {
	ws, _ := res.JSON()["warnings"].([]any)
	for _, w := range ws {
		w := w.(map[string]any)
		if w["code"] != "ignored_fields" {
			continue
		}
		got, _ := w["details"].(map[string]any)["fields"].([]any)
		if len(got) != len(fields) {
			return false
		}
		for i, f := range fields {
			if got[i] != f {
				return false
			}
		}
		return true
	}
	return false
}
