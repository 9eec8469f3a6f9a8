package webhooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// server is a running `eventapi serve`.
type server struct{ *apitest.Process }

// startServer runs `eventapi serve` on a random loopback port with env and
// no drain delay.
func startServer(t *testing.T, env ...string) server {
	t.Helper()
	return server{apitest.StartProcess(t, append([]string{"EVENTAPI_DRAIN_DELAY=0s"}, env...)...)}
}

// do sends one request with key and decodes the {data} envelope.
func (s server) do(t *testing.T, key, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.Base()+path, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var env struct {
		Data map[string]any `json:"data"`
	}
	_ = json.NewDecoder(res.Body).Decode(&env)
	return res.StatusCode, env.Data
}

// deliveryState is one delivery row as the test reads it.
type deliveryState struct {
	ChangeID string `bun:"change_id"`
	Status   string `bun:"status"`
	Attempts int    `bun:"attempt_count"`
	Recorded int    `bun:"recorded"`
}

// TestTwoProcessesShareTheQueue: two real `eventapi serve` processes
// deliver from one queue. With a healthy receiver every change arrives
// exactly once and is never in flight twice; a process killed with SIGKILL
// while its request is held at the receiver loses nothing: the lease runs
// out and the other process delivers it.
func TestTwoProcessesShareTheQueue(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	ctx := context.Background()
	db, err := database.Open(ctx, dbURL, database.Options{MaxOpenConns: 2, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	org, err := tenancy.CreateOrganization(ctx, db, "Fleet", nil)
	if err != nil {
		t.Fatal(err)
	}
	k, err := tenancy.CreateKey(ctx, db, tenancy.NewKey{OrganizationID: org.ID, Name: "k", Scopes: tenancy.AllScopes, Mode: apikey.Live})
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"EVENTAPI_DATABASE_URL=" + dbURL, "EVENTAPI_DATABASE_POOLER=" + pgtest.Pooler(), "EVENTAPI_REDIS_URL=" + pgtest.RedisURL(),
		"EVENTAPI_WEBHOOK_ALLOW_PRIVATE=true", "EVENTAPI_WEBHOOK_POLL_INTERVAL=20ms",
		// Generous: on a loaded machine a 2 s attempt timed out while the
		// receiver held it, so the sender's socket was gone before the
		// test looked for it (and a healthy delivery could be retried).
		"EVENTAPI_WEBHOOK_TIMEOUT=10s", "EVENTAPI_WEBHOOK_LEASE=12s",
		"EVENTAPI_WEBHOOK_BACKOFF_BASE=20ms", "EVENTAPI_WEBHOOK_BACKOFF_MAX=200ms"}
	p1, p2 := startServer(t, env...), startServer(t, env...)

	rcv := newReceiver(t)
	var inflight sync.Map // webhook-id → *int32 concurrent requests
	var overlap sync.Once
	overlapped := false
	held := make(chan *http.Request, 1)
	var holding bool
	var hmu sync.Mutex
	rcv.hold = func(r *http.Request) {
		id := r.Header.Get("webhook-id")
		v, _ := inflight.LoadOrStore(id, new(int))
		hmu.Lock()
		n := v.(*int)
		*n++
		if *n > 1 {
			overlap.Do(func() { overlapped = true })
		}
		hold := holding
		holding = false
		hmu.Unlock()
		if hold {
			held <- r
			<-r.Context().Done() // until the sending process dies
		}
		hmu.Lock()
		*n--
		hmu.Unlock()
	}
	code, ep := p1.do(t, k.Secret, "POST", endpoints, map[string]any{"url": rcv.URL(), "enabled_events": []string{"client.created"}})
	if code != 201 {
		t.Fatalf("register: %d %v", code, ep)
	}
	rcv.SetSecret(ep["secret"].(string))

	// Healthy receiver: exactly once each.
	const n = 40
	want := map[string]bool{}
	for i := 0; i < n; i++ {
		p := []server{p1, p2}[i%2]
		code, c := p.do(t, k.Secret, "POST", "/api/v2/clients", map[string]any{"name": fmt.Sprintf("client %d", i)})
		if code != 201 {
			t.Fatalf("create client: %d", code)
		}
		want[c["id"].(string)] = true
	}
	waitFor(t, "every change delivered", func() bool { return len(created(rcv)) == n })
	var states []deliveryState
	waitFor(t, "every delivery recorded", func() bool {
		states = nil
		if err := db.NewRaw(`SELECT d.change_id, d.status, d.attempt_count,
				(SELECT count(*) FROM webhook_delivery_attempts a WHERE a.organization_id = d.organization_id AND a.delivery_id = d.id) AS recorded
			FROM webhook_deliveries d WHERE d.organization_id = ?`, org.ID).Scan(ctx, &states); err != nil {
			t.Fatal(err)
		}
		for _, s := range states {
			if s.Status != "succeeded" {
				return false
			}
		}
		return len(states) == n
	})
	for id, times := range created(rcv) {
		if !want[id] || times != 1 {
			t.Errorf("client %s delivered %d times (known %v), want exactly once", id, times, want[id])
		}
	}
	for _, s := range states {
		if s.Attempts != 1 || s.Recorded != 1 {
			t.Errorf("delivery of %s: %d attempts (%d recorded), want 1", s.ChangeID, s.Attempts, s.Recorded)
		}
	}

	// SIGKILL mid-delivery: the receiver holds the next request until the
	// process that sent it is killed.
	hmu.Lock()
	holding = true
	hmu.Unlock()
	_, c := p2.do(t, k.Secret, "POST", "/api/v2/clients", map[string]any{"name": "killed in flight"})
	victim := c["id"].(string)
	var r *http.Request
	select {
	case r = <-held:
	case <-time.After(60 * time.Second):
		t.Fatal("no delivery reached the receiver")
	}
	sender, survivor := p1, p2
	receiver := r.Context().Value(http.LocalAddrContextKey).(net.Addr).String()
	if ownsConnection(t, p2.Pid(), r.RemoteAddr, receiver) {
		sender, survivor = p2, p1
	} else if !ownsConnection(t, p1.Pid(), r.RemoteAddr, receiver) {
		t.Fatalf("neither process owns the connection from %s to %s", r.RemoteAddr, receiver)
	}
	sender.Kill()
	waitFor(t, "the killed process's change delivered by the other", func() bool { return created(rcv)[victim] == 1 })
	var s deliveryState
	waitFor(t, "the delivery recorded as succeeded", func() bool {
		err := db.NewRaw(`SELECT d.change_id, d.status, d.attempt_count,
				(SELECT count(*) FROM webhook_delivery_attempts a WHERE a.organization_id = d.organization_id AND a.delivery_id = d.id) AS recorded
			FROM webhook_deliveries d JOIN changes ch ON ch.organization_id = d.organization_id AND ch.seq = d.change_seq
			WHERE d.organization_id = ? AND ch.object_id = ?`, org.ID, victim).Scan(ctx, &s)
		return err == nil && s.Status == "succeeded"
	})
	// The killed attempt left no record; the survivor's did.
	if s.Attempts != 1 || s.Recorded != 1 {
		t.Errorf("killed-in-flight delivery: %d attempts, %d recorded; want 1 (the survivor's)", s.Attempts, s.Recorded)
	}
	// The survivor still delivers new changes.
	_, c = survivor.do(t, k.Secret, "POST", "/api/v2/clients", map[string]any{"name": "after the kill"})
	after := c["id"].(string)
	waitFor(t, "a change after the kill", func() bool { return created(rcv)[after] == 1 })
	hmu.Lock()
	twice := overlapped
	hmu.Unlock()
	if twice {
		t.Error("one delivery was in flight twice at once")
	}
	if bad := rcv.Bad(); len(bad) > 0 {
		t.Errorf("requests that failed verification: %v", bad)
	}
}
