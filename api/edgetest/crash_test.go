package edgetest

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/middleware/idempotency"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestCrashBetweenCommitAndReply kills a real `eventapi serve` process with
// SIGKILL after its keyed request committed and before it answered. The
// process reaches that gap by itself: its Redis connection runs through a
// proxy that never forwards the write of the finished record, and its Redis
// timeouts for idempotency records (EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT,
// EVENTAPI_REDIS_READ_TIMEOUT) are long, so it waits there until it is
// killed. Nothing in the binary is built for the test.
//
// Before the kill the test sees the state a crash leaves: the record and the
// completed idempotency row are committed, and the edge store still holds the
// in-progress marker. The client never gets an answer. A retry through a
// second process then replays the committed response, and no second record
// exists, whether the retry meets the leftover marker or finds it expired.
func TestCrashBetweenCommitAndReply(t *testing.T) {
	rig := newCrashRig(t)
	ctx, db, store := rig.ctx, rig.db, rig.store

	for _, tt := range []struct {
		key          string
		expireMarker bool
	}{
		{"crash-marker-left", false},
		{"crash-marker-expired", true},
	} {
		t.Run(tt.key, func(t *testing.T) {
			name := "Crash Test Dummies " + tt.key
			body := `{"name":"` + name + `"}`
			storeKey := idempotency.StoreKey(rig.org, tt.key)

			proxy := startHoldingProxy(t, strings.TrimPrefix(strings.TrimSuffix(rig.redisURL, "/0"), "redis://"), []byte(`{"s":"done"`))
			victim := serve(t, append(append([]string(nil), rig.common...),
				"EVENTAPI_REDIS_URL=redis://"+proxy.Addr+"/0", "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT=10m", "EVENTAPI_REDIS_READ_TIMEOUT=10m", "EVENTAPI_REDIS_WRITE_TIMEOUT=10m"))

			answered := rig.post(victim.URL, body, tt.key)
			select {
			case <-proxy.Held:
			case a := <-answered:
				t.Fatalf("the request ended (%s) before the process wrote its finished record to the edge store", a)
			}

			// The process is now between COMMIT and its reply.
			if ids := rig.clientsNamed(t, name); len(ids) != 1 {
				t.Fatalf("%d clients named %q before the kill, want the 1 committed", len(ids), name)
			}
			var status *int
			if err := db.NewSelect().TableExpr("idempotency_keys").Column("status").
				Where("organization_id = ? AND key = ?", rig.org, tt.key).Scan(ctx, &status); err != nil || status == nil || *status != 201 {
				t.Fatalf("idempotency row before the kill: status %v, %v; want the committed 201", status, err)
			}
			rec, ok, err := store.Get(ctx, storeKey)
			if err != nil || !ok || !bytes.Contains(rec, []byte(`"s":"running"`)) {
				t.Fatalf("edge record before the kill: %s (present %v, %v); want the in-progress marker", rec, ok, err)
			}

			victim.Kill()
			if a := <-answered; !strings.HasPrefix(a, "no answer") {
				t.Fatalf("the killed process answered %s", a)
			}
			if rec, ok, err := store.Get(ctx, storeKey); err != nil || !ok || !bytes.Contains(rec, []byte(`"s":"running"`)) {
				t.Fatalf("edge record after the kill: %s (present %v, %v); want the marker left behind", rec, ok, err)
			}
			if tt.expireMarker {
				if err := store.Delete(ctx, storeKey); err != nil {
					t.Fatal(err)
				}
			}

			survivor := serve(t, rig.direct)
			retry := rig.retryMakesOne(t, survivor.URL, name, body, tt.key, true)
			// The replay repaired the edge store: the next retry is answered there.
			again := viaHTTP(t, rig.client, survivor.URL, "POST", "/api/v2/clients", rig.key, body, keyHeader, tt.key)
			if again.Status != http.StatusCreated || !bytes.Equal(again.Body, retry.Body) {
				t.Fatalf("second retry: %d %s", again.Status, again.Body)
			}
			if rec, ok, err := store.Get(ctx, storeKey); err != nil || !ok || !bytes.Contains(rec, []byte(`"s":"done"`)) {
				t.Fatalf("edge record after the replay: %s %v %v", rec, ok, err)
			}
		})
	}
}

// crashRig is what the crash tests share: a migrated database with an
// organization and a live key, their own Redis, the environments of a
// process that reaches both directly (direct) or needs its Redis URL
// (common), and the test's own connections to the database and the edge
// store (the same key layout the processes use, without a proxy).
type crashRig struct {
	ctx            context.Context
	db             *bun.DB
	store          edge.Store
	client         *http.Client
	org            uuid.UUID
	key            string
	redisURL       string
	common, direct []string
}

func newCrashRig(t *testing.T) *crashRig {
	t.Helper()
	r := &crashRig{ctx: context.Background()}
	rs := startRedis(t)
	dbURL := pgtest.NewEmptyDatabase(t)
	r.redisURL = rs.URL()
	r.common = []string{"EVENTAPI_DATABASE_URL=" + dbURL, "OTEL_SDK_DISABLED=true"}
	r.direct = append(append([]string(nil), r.common...), "EVENTAPI_REDIS_URL="+rs.URL())
	cli(t, r.direct, nil, "migrate", "up")
	var org struct{ ID uuid.UUID }
	cli(t, r.direct, &org, "orgs", "create", "--name", "Crash Test Rentals", "--output", "json")
	var key struct{ Key string }
	cli(t, r.direct, &key, "keys", "create", "--org", org.ID.String(), "--name", "crash", "--scopes", "all",
		"--mode", "live", "--output", "json")
	r.org, r.key = org.ID, key.Key
	db, err := database.Open(r.ctx, dbURL, database.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	r.db = db
	store, err := edge.NewRedis(rs.URL(), edge.RedisOptions{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	r.store = store
	r.client = &http.Client{Timeout: 5 * time.Minute}
	t.Cleanup(r.client.CloseIdleConnections)
	return r
}

// clientsNamed returns the ids of the organization's clients named name.
func (r *crashRig) clientsNamed(t *testing.T, name string) []string {
	t.Helper()
	var ids []string
	if err := r.db.NewSelect().TableExpr("clients").Column("id").
		Where("organization_id = ?", r.org).Where("name = ?", name).Scan(r.ctx, &ids); err != nil {
		t.Fatal(err)
	}
	return ids
}

// post sends the keyed client POST to base in the background; the channel
// gets its status line, or "no answer: …".
func (r *crashRig) post(base, body, idemKey string) <-chan string {
	answered := make(chan string, 1)
	go func() {
		req := newRequest("POST", base+"/api/v2/clients", r.key, body, keyHeader, idemKey)
		req.RequestURI = ""
		resp, err := r.client.Do(req)
		if err != nil {
			answered <- "no answer: " + err.Error()
			return
		}
		defer resp.Body.Close()
		answered <- resp.Status
	}()
	return answered
}

// retryMakesOne sends the keyed client POST to base and checks that it is
// 201, replayed or executed as replayed says, and that exactly one client
// named name exists: the one its answer names.
func (r *crashRig) retryMakesOne(t *testing.T, base, name, body, idemKey string, replayed bool) *reply {
	t.Helper()
	retry := viaHTTP(t, r.client, base, "POST", "/api/v2/clients", r.key, body, keyHeader, idemKey)
	if retry.Status != http.StatusCreated || (retry.Header.Get(idempotency.HeaderReplayed) == "true") != replayed {
		t.Fatalf("retry: %d %s (replayed %q), want 201 replayed %v", retry.Status, retry.Body,
			retry.Header.Get(idempotency.HeaderReplayed), replayed)
	}
	ids := r.clientsNamed(t, name)
	data, _ := retry.JSON()["data"].(map[string]any)
	if len(ids) != 1 || data["id"] != ids[0] {
		t.Fatalf("clients %v after the retry, whose answer names %v: want exactly that one", ids, data["id"])
	}
	return retry
}
