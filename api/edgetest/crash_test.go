package edgetest

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

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
	ctx := context.Background()
	rs := startRedis(t)
	dbURL := pgtest.NewEmptyDatabase(t)
	common := []string{"EVENTAPI_DATABASE_URL=" + dbURL, "OTEL_SDK_DISABLED=true"}
	direct := append(append([]string(nil), common...), "EVENTAPI_REDIS_URL="+rs.URL())
	cli(t, direct, nil, "migrate", "up")
	var org struct{ ID uuid.UUID }
	cli(t, direct, &org, "orgs", "create", "--name", "Crash Test Rentals", "--output", "json")
	var key struct{ Key string }
	cli(t, direct, &key, "keys", "create", "--org", org.ID.String(), "--name", "crash", "--scopes", "all",
		"--mode", "live", "--output", "json")

	db, err := database.Open(ctx, dbURL, database.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	// The same edge store (and key layout) the processes use, without a proxy.
	store, err := edge.NewRedis(rs.URL(), edge.RedisOptions{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	client := &http.Client{Timeout: 5 * time.Minute}
	t.Cleanup(client.CloseIdleConnections)

	clientsNamed := func(name string) []string {
		t.Helper()
		var ids []string
		if err := db.NewSelect().TableExpr("clients").Column("id").
			Where("organization_id = ?", org.ID).Where("name = ?", name).Scan(ctx, &ids); err != nil {
			t.Fatal(err)
		}
		return ids
	}

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
			storeKey := idempotency.StoreKey(org.ID, tt.key)

			proxy := startHoldingProxy(t, strings.TrimPrefix(strings.TrimSuffix(rs.URL(), "/0"), "redis://"), []byte(`{"s":"done"`))
			victim := serve(t, append(append([]string(nil), common...),
				"EVENTAPI_REDIS_URL=redis://"+proxy.Addr+"/0", "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT=10m", "EVENTAPI_REDIS_READ_TIMEOUT=10m", "EVENTAPI_REDIS_WRITE_TIMEOUT=10m"))

			answered := make(chan string, 1)
			go func() {
				req := newRequest("POST", victim.URL+"/api/v2/clients", key.Key, body, keyHeader, tt.key)
				req.RequestURI = ""
				resp, err := client.Do(req)
				if err != nil {
					answered <- "no answer: " + err.Error()
					return
				}
				defer resp.Body.Close()
				answered <- resp.Status
			}()
			select {
			case <-proxy.Held:
			case a := <-answered:
				t.Fatalf("the request ended (%s) before the process wrote its finished record to the edge store", a)
			}

			// The process is now between COMMIT and its reply.
			if ids := clientsNamed(name); len(ids) != 1 {
				t.Fatalf("%d clients named %q before the kill, want the 1 committed", len(ids), name)
			}
			var status *int
			if err := db.NewSelect().TableExpr("idempotency_keys").Column("status").
				Where("organization_id = ? AND key = ?", org.ID, tt.key).Scan(ctx, &status); err != nil || status == nil || *status != 201 {
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

			survivor := serve(t, direct)
			retry := viaHTTP(t, client, survivor.URL, "POST", "/api/v2/clients", key.Key, body, keyHeader, tt.key)
			if retry.Status != http.StatusCreated || retry.Header.Get(idempotency.HeaderReplayed) != "true" {
				t.Fatalf("retry: %d %s", retry.Status, retry.Body)
			}
			ids := clientsNamed(name)
			data, _ := retry.JSON()["data"].(map[string]any)
			if len(ids) != 1 || data["id"] != ids[0] {
				t.Fatalf("clients %v after the retry, which replayed %v: want the one committed before the crash", ids, data["id"])
			}
			// The replay repaired the edge store: the next retry is answered there.
			again := viaHTTP(t, client, survivor.URL, "POST", "/api/v2/clients", key.Key, body, keyHeader, tt.key)
			if again.Status != http.StatusCreated || !bytes.Equal(again.Body, retry.Body) {
				t.Fatalf("second retry: %d %s", again.Status, again.Body)
			}
			if rec, ok, err := store.Get(ctx, storeKey); err != nil || !ok || !bytes.Contains(rec, []byte(`"s":"done"`)) {
				t.Fatalf("edge record after the replay: %s %v %v", rec, ok, err)
			}
		})
	}
}
