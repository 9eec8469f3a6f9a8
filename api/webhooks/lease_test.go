package webhooks_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/webhooks/delivery"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/seal"
)

// slowLoad delays the worker's LoadMessage query: a loaded database, a pool
// wait or a slow network between the claim and the request. (A database
// that is slow for one statement cannot be had for real on demand; the
// rest of the test is real: two workers, one queue, an HTTP receiver.)
type slowLoad struct{ d time.Duration }

func (h slowLoad) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if strings.Contains(e.Query, "SELECT e.url, e.secret") {
		time.Sleep(h.d)
	}
	return ctx
}
func (slowLoad) AfterQuery(context.Context, *bun.QueryEvent) {}

// TestAttemptNeverOutlivesItsLease: worker A spends most of its lease
// loading the message, so its request must end when the lease does, not a
// full timeout later. Otherwise worker B claims the delivery when the lease
// ends and the receiver has one change in flight twice at once. The
// receiver holds every request open until the sender gives up; the test
// ends when the second attempt arrives, by which time an overlap would have
// been counted.
func TestAttemptNeverOutlivesItsLease(t *testing.T) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	ctx := context.Background()

	var mu sync.Mutex
	inFlight, most := map[string]int{}, 0
	arrived := make(chan struct{}, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("webhook-id")
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		inFlight[id]++
		most = max(most, inFlight[id])
		mu.Unlock()
		arrived <- struct{}{}
		select { // answer only when the sender hangs up (or much later)
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
		mu.Lock()
		inFlight[id]--
		mu.Unlock()
	}))
	defer srv.Close()
	if res := a.Post(endpoints, map[string]any{"url": srv.URL + "/hook", "enabled_events": []string{"client.created"}}); res.Status != 201 {
		t.Fatalf("register: %d %s", res.Status, res.Body)
	}

	key, err := database.Secret(ctx, env.Svc.DB, "webhook_secret_key", 32)
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := seal.New(key)
	if err != nil {
		t.Fatal(err)
	}
	slowDB, err := database.Open(ctx, env.Cfg.DatabaseURL, database.Options{MaxOpenConns: 4, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	defer slowDB.Close()
	slowDB = slowDB.WithQueryHook(slowLoad{d: 2500 * time.Millisecond})

	cfg := env.Cfg.Webhook
	cfg.Workers, cfg.Timeout, cfg.Lease = 1, 3*time.Second, 4*time.Second // lease > timeout, as config requires
	cfg.PollInterval, cfg.EndpointConcurrency = 20*time.Millisecond, 4
	log := slog.New(slog.DiscardHandler)
	podA := delivery.Start(slowDB, sealer, log, cfg)
	defer podA.Stop()

	createClient(t, a, "hooked")
	wait := func(what string) {
		t.Helper()
		select {
		case <-arrived:
		case <-time.After(60 * time.Second):
			t.Fatalf("the %s attempt never arrived", what)
		}
	}
	wait("first")
	podB := delivery.Start(env.Svc.DB, sealer, log, cfg) // a healthy pod joins while A's attempt is out
	defer podB.Stop()
	wait("second")
	mu.Lock()
	defer mu.Unlock()
	if most > 1 {
		t.Fatalf("one change was in flight %d times at once to one endpoint: an attempt outlived its lease and another worker claimed the delivery", most)
	}
}
