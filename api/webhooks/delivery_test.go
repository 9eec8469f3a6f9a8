package webhooks_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	store "github.com/eventapi/eventapi/api/storage/webhooks"
)

// TestSignedDelivery: a record created through the API arrives at the
// endpoint signed; the Standard Webhooks library verifies it, and refuses
// it with a tampered body or an old timestamp; data is the record as GET
// renders it; the deliveries list shows the attempt.
func TestSignedDelivery(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rcv := newReceiver(t)
	ep := register(t, a, rcv, "client.created", "client.updated")
	id := createClient(t, a, "Signed Sound Ltd")
	waitFor(t, "the client.created message", func() bool { return created(rcv)[id] == 1 })

	m := rcv.Messages()[0]
	want := a.Get("/api/v2/clients/" + id).Data()
	if !reflect.DeepEqual(m.Data, want) {
		t.Errorf("data = %v\nGET  = %v", m.Data, want)
	}
	wh, _ := standardwebhooks.NewWebhook(rcv.secret)
	if err := wh.Verify(m.Body, m.Header); err != nil {
		t.Fatalf("genuine message no longer verifies: %v", err)
	}
	if err := wh.Verify(bytes.Replace(m.Body, []byte("Signed"), []byte("Forged"), 1), m.Header); err == nil {
		t.Error("a tampered body verified")
	}
	old := m.Header.Clone()
	old.Set("webhook-timestamp", fmt.Sprint(time.Now().Add(-time.Hour).Unix()))
	if err := wh.Verify(m.Body, old); err == nil {
		t.Error("an hour-old timestamp verified")
	}
	var body map[string]any
	_ = json.Unmarshal(m.Body, &body)
	if len(body) != 3 || body["type"] != "client.created" || body["timestamp"] == nil {
		t.Errorf("body = %s, want {type, timestamp, data}", m.Body)
	}
	// An update of a subscribed type arrives too; another type does not.
	if r := a.Patch("/api/v2/clients/"+id, map[string]any{"name": "Signed Sound"}); r.Status != 200 {
		t.Fatal(r.Status, string(r.Body))
	}
	waitFor(t, "the client.updated message", func() bool { return len(rcv.Messages()) == 2 })
	if got := rcv.Messages()[1]; got.Type != "client.updated" || got.Data["name"] != "Signed Sound" {
		t.Errorf("second message %s %v", got.Type, got.Data)
	}
	var ds []map[string]any
	waitFor(t, "both deliveries recorded", func() bool {
		ds = deliveries(t, a, ep)
		return len(ds) == 2 && ds[0]["status"] == "succeeded" && ds[1]["status"] == "succeeded"
	})
	if ds[0]["type"] != "client.updated" || ds[1]["type"] != "client.created" {
		t.Errorf("deliveries not newest first: %v, %v", ds[0]["type"], ds[1]["type"])
	}
	for _, d := range ds {
		at := d["attempts"].([]any)
		if d["status"] != "succeeded" || d["attempt_count"] != float64(1) || len(at) != 1 ||
			at[0].(map[string]any)["response_status"] != float64(204) || at[0].(map[string]any)["error"] != nil {
			t.Errorf("delivery %v", d)
		}
	}
	if ds[1]["change_id"] != m.ID {
		t.Errorf("webhook-id %s is not the delivery's change_id %v", m.ID, ds[1]["change_id"])
	}
	if bad := rcv.Bad(); len(bad) > 0 {
		t.Errorf("requests that failed verification: %v", bad)
	}
}

// TestReceiverDownThenBack: with the receiver's port closed, every change
// is attempted, fails with "connection refused" and is retried; once the
// receiver is back, every change arrives, none lost, and the deliveries
// list shows the failed attempts before the success.
func TestReceiverDownThenBack(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rcv := newReceiver(t)
	ep := register(t, a, rcv, "client.created")
	rcv.Close()
	const n = 8
	var ids []string
	for i := 0; i < n; i++ {
		ids = append(ids, createClient(t, a, fmt.Sprintf("Down %d", i)))
	}
	waitFor(t, "two failed attempts of every delivery", func() bool {
		ds := deliveries(t, a, ep)
		if len(ds) != n {
			return false
		}
		for _, d := range ds {
			if d["attempt_count"].(float64) < 2 {
				return false
			}
		}
		return true
	})
	rcv.Open()
	waitFor(t, "every change delivered", func() bool { return len(created(rcv)) == n })
	got := created(rcv)
	for _, id := range ids {
		if got[id] != 1 {
			t.Errorf("client %s delivered %d times, want 1", id, got[id])
		}
	}
	waitFor(t, "every delivery succeeded", func() bool {
		for _, d := range deliveries(t, a, ep) {
			if d["status"] != "succeeded" {
				return false
			}
		}
		return true
	})
	for _, d := range deliveries(t, a, ep) {
		// A delivery embeds its latest store.MaxEmbeddedAttempts attempts:
		// on a slow machine the first ones pass that many before the
		// receiver is back.
		at, count := d["attempts"].([]any), int(d["attempt_count"].(float64))
		if count < 3 || len(at) != min(count, store.MaxEmbeddedAttempts) {
			t.Fatalf("delivery with %d attempts embedded (count %d), want >= 3, the latest %d embedded", len(at), count, store.MaxEmbeddedAttempts)
		}
		for _, x := range at[:len(at)-1] {
			x := x.(map[string]any)
			if x["error"] != "connection refused" || x["response_status"] != nil {
				t.Errorf("failed attempt %v, want connection refused", x)
			}
		}
		if last := at[len(at)-1].(map[string]any); last["response_status"] != float64(204) {
			t.Errorf("last attempt %v", last)
		}
		if d["next_attempt_at"] != nil {
			t.Errorf("succeeded delivery has next_attempt_at %v", d["next_attempt_at"])
		}
	}
	if e := a.Get(endpoints + "/" + ep).Data(); e["failing_since"] != nil || e["status"] != "enabled" {
		t.Errorf("endpoint after recovery: %v", e)
	}
}
