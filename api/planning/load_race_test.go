package planning_test

import (
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
)

// TestConcurrentWritesOntoOneTruckWarnInCommitOrder: writes that load one
// truck at once, on two instances, run one after the other, so the write
// that takes the truck over warns whatever the timing. In each case four
// writes, each of its own 40 lb item (so no equipment row orders them), put
// 160 lb onto a 100 lb van over days 4–5 while the test holds the van's
// row; every one must wait for it. Once it is released, the first two to
// commit fit (40, 80 lb) and the last two each take the van over: exactly
// two answers carry over_payload. The cases are the two ways a write loads
// a truck: assigning a reservation to it (a PATCH of vehicle_id, a POST
// with it), and moving one already on it onto the busy days. Before the
// van was locked against other writers (it was FOR SHARE, which the test's
// own lock is), the writes did not wait, and each summed the load without
// the others' uncommitted lines.
func TestConcurrentWritesOntoOneTruckWarnInCommitOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		// writes makes the records of the four writes and returns them.
		writes func(t *testing.T, a *apitest.Org, van uuid.UUID, items []uuid.UUID) []write
	}{
		{"assigned", func(t *testing.T, a *apitest.Org, van uuid.UUID, items []uuid.UUID) []write {
			onVan := map[string]any{"vehicle_id": van.String()}
			var ws []write
			for i, it := range items {
				if i < 2 { // parked, then assigned by PATCH
					id := reservation(t, a, it, nil, 4, 5)
					ws = append(ws, write{"PATCH", reservationsPath + "/" + id, onVan})
					continue
				}
				ws = append(ws, write{"POST", reservationsPath, map[string]any{"equipment_id": it.String(),
					"vehicle_id": van.String(), "start_date": day(4), "end_date": day(5), "quantity": 1}})
			}
			return ws
		}},
		{"moved onto the busy days", func(t *testing.T, a *apitest.Org, van uuid.UUID, items []uuid.UUID) []write {
			var ws []write
			for _, it := range items {
				id := reservation(t, a, it, &van, 10, 11)
				ws = append(ws, write{"PATCH", reservationsPath + "/" + id, map[string]any{"start_date": day(4), "end_date": day(5)}})
			}
			return ws
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			replica := env.Replica()
			a := env.NewOrg("A")
			rows := bookingtest.For(env, a)
			van := truck(rows, "Van", 100, nil, nil, nil)
			var items []uuid.UUID
			for _, name := range []string{"Crate A", "Crate B", "Crate C", "Crate D"} {
				items = append(items, item(rows, name, 40, nil, nil, nil))
			}
			writes := tc.writes(t, a, van, items)

			type answer struct {
				what     string
				status   int
				warnings []any
			}
			answers := make(chan answer, len(writes))
			var inFlight sync.WaitGroup
			t.Cleanup(inFlight.Wait)
			release := apitest.HoldRowLock(t, env, "/* every organization: the test's own row lock */ SELECT 1 FROM vehicles WHERE id = ? FOR SHARE", van)
			for i, w := range writes {
				// Two instances; every other write carries an
				// Idempotency-Key, so it runs in the request's transaction.
				o, headers := a, []string(nil)
				if i%2 == 1 {
					o = a.Via(replica)
				}
				if i >= 2 {
					headers = []string{"Idempotency-Key", uuid.NewString()}
				}
				inFlight.Add(1)
				go func() {
					defer inFlight.Done()
					r := o.Do(w.method, w.path, w.body, headers...)
					ws, _ := r.JSON()["warnings"].([]any)
					answers <- answer{w.method + " " + w.path, r.Status, ws}
				}()
			}
			apitest.WaitBlocked(t, env, len(writes), answers, "the van's row")
			release()

			warned := 0
			for range writes {
				a := <-answers
				if a.status != 200 && a.status != 201 {
					t.Errorf("%s: %d", a.what, a.status)
				}
				for _, w := range a.warnings {
					if w.(map[string]any)["code"] == "over_payload" {
						warned++
					}
				}
			}
			if l := a.Get(loadPath(van, 4, 5)).Data(); l["payload_lbs"] != 160.0 || l["over_payload"] != true {
				t.Fatalf("the van on days 4–5: %v, want 160 lbs, over", l)
			}
			if warned != 2 {
				t.Errorf("%d of the 4 writes warned over_payload, want 2 (the third and the fourth to commit)", warned)
			}
		})
	}
}

// write is one request of the race.
type write struct {
	method, path string
	body         map[string]any
}

// reservation books one of item over days [from, to), on vehicle when it is
// set, and returns its id.
func reservation(t *testing.T, a *apitest.Org, item uuid.UUID, vehicle *uuid.UUID, from, to int) string {
	t.Helper()
	body := map[string]any{"equipment_id": item.String(), "start_date": day(from), "end_date": day(to), "quantity": 1}
	if vehicle != nil {
		body["vehicle_id"] = vehicle.String()
	}
	r := a.Post(reservationsPath, body)
	if r.Status != 201 {
		t.Fatalf("reservation: %d %s", r.Status, r.Body)
	}
	return r.Data()["id"].(string)
}
