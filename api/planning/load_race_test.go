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
// that takes the truck over warns whatever the timing. Four 40 lb loads
// onto a 100 lb van (two reservations assigned by PATCH, two created on
// it, one of each with an Idempotency-Key) wait on the van's row while the
// test holds it; once released, the first two to commit fit (40, 80 lb)
// and the last two each take it over: exactly two answers carry
// over_payload. Before the van was locked against other writers (FOR
// SHARE), each write summed the load without the others' uncommitted
// lines, and the van ended at 160 lb with fewer warnings.
func TestConcurrentWritesOntoOneTruckWarnInCommitOrder(t *testing.T) {
	env := newEnv(t)
	replica := env.Replica()
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	van := truck(rows, "Van", 100, nil, nil, nil)
	crate := item(rows, "Crate", 40, nil, nil, nil)
	var parked []string // reservations of a crate, not on a truck yet
	for range 2 {
		r := a.Post(reservationsPath, map[string]any{"equipment_id": crate.String(), "start_date": day(3), "end_date": day(5), "quantity": 1})
		if r.Status != 201 {
			t.Fatalf("reservation: %d %s", r.Status, r.Body)
		}
		parked = append(parked, r.Data()["id"].(string))
	}

	type answer struct {
		what     string
		status   int
		warnings []any
	}
	answers := make(chan answer, 4)
	var inFlight sync.WaitGroup
	t.Cleanup(inFlight.Wait)
	// FOR SHARE is what the writes took before: it does not make them wait
	// for each other, nor for this transaction.
	release := apitest.HoldRowLock(t, env, "/* every organization: the test's own row lock */ SELECT 1 FROM vehicles WHERE id = ? FOR SHARE", van)
	send := func(what string, o *apitest.Org, method, path string, body map[string]any, headers ...string) {
		inFlight.Add(1)
		go func() {
			defer inFlight.Done()
			r := o.Do(method, path, body, headers...)
			ws, _ := r.JSON()["warnings"].([]any)
			answers <- answer{what, r.Status, ws}
		}()
	}
	onVan := map[string]any{"vehicle_id": van.String()}
	created := map[string]any{"equipment_id": crate.String(), "vehicle_id": van.String(),
		"start_date": day(4), "end_date": day(6), "quantity": 1}
	send("PATCH", a, "PATCH", reservationsPath+"/"+parked[0], onVan)
	send("keyed PATCH", a.Via(replica), "PATCH", reservationsPath+"/"+parked[1], onVan, "Idempotency-Key", uuid.NewString())
	send("POST", a.Via(replica), "POST", reservationsPath, created)
	send("keyed POST", a, "POST", reservationsPath, created, "Idempotency-Key", uuid.NewString())

	apitest.WaitBlocked(t, env, 4, answers, "the van's row")
	release()
	warned := 0
	for range 4 {
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
		t.Fatalf("the van on day 4: %v, want 160 lbs, over", l)
	}
	if warned != 2 {
		t.Errorf("%d of the 4 writes warned over_payload, want 2 (the third and the fourth to commit)", warned)
	}
}
