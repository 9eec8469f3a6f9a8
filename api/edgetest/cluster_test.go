package edgetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/middleware/idempotency"
	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/redistest"
)

// TestRedisClusterMasterKilled runs one `eventapi serve` on a private
// 3-master Redis Cluster and crashes (SIGKILL) the
// master that serves the organization's rate-limit bucket. Until its
// replica is promoted, reads proceed with the limiter failing open (logged)
// and keyed writes whose record lives on that master get 503 without being
// executed; after the promotion both recover in the same process: keyed
// writes execute and replay, and reads are counted again.
func TestRedisClusterMasterKilled(t *testing.T) {
	cluster := redistest.StartCluster(t, 5*time.Second)
	env := []string{
		"EVENTAPI_DATABASE_URL=" + pgtest.NewEmptyDatabase(t),
		"EVENTAPI_REDIS_URL=" + cluster.URL,
		"OTEL_SDK_DISABLED=true",
		// A patient limiter: on a starved test machine a slow reply would
		// fail open too and blur what this test looks at (a dead master is
		// refused at once whatever the bound).
		"EVENTAPI_REDIS_LIMITER_TIMEOUT=1s",
	}
	cli(t, env, nil, "migrate", "up")
	var org struct{ ID string }
	cli(t, env, &org, "orgs", "create", "--name", "Cluster Rentals", "--output", "json")
	var key struct{ Key string }
	cli(t, env, &key, "keys", "create", "--org", org.ID, "--name", "cluster", "--scopes", "all", "--mode", "live", "--output", "json")
	p := serve(t, env)
	client := &http.Client{Timeout: 30 * time.Second}
	t.Cleanup(client.CloseIdleConnections)
	read := func() *reply { return viaHTTP(t, client, p.URL, "GET", "/api/v2/clients", key.Key, "") }
	keyed := func(k string) *reply {
		return viaHTTP(t, client, p.URL, "POST", "/api/v2/clients", key.Key, fmt.Sprintf(`{"name":%q}`, "Client "+k), keyHeader, k)
	}

	// The production key layout (prefix "eventapi:", platform/edge): the
	// bucket and, for the keyed writes, records on the same master.
	master := cluster.MasterOf(t, "eventapi:{"+edge.WindowKey("v2:org:"+org.ID)+"}")
	orgID := uuid.MustParse(org.ID)
	sameMaster := func() string {
		for i := 0; i < 200; i++ {
			k := "failover-" + uuid.NewString()
			if cluster.MasterOf(t, "eventapi:{"+idempotency.StoreKey(orgID, k)+"}") == master {
				return k
			}
		}
		t.Fatal("no Idempotency-Key hashed to the killed master's slots")
		return ""
	}
	before, during := sameMaster(), sameMaster()

	if r := keyed(before); r.Status != http.StatusCreated {
		t.Fatalf("healthy keyed write: %d %s", r.Status, r.Body)
	}
	if r := read(); r.Status != http.StatusOK || r.Remaining() != 998 {
		t.Fatalf("healthy read: %d remaining %d", r.Status, r.Remaining())
	}

	if got := readyRedis(t, client, p.URL); got != "ok" {
		t.Fatalf("/readyz redis %q on a healthy cluster, want ok", got)
	}
	cluster.Kill(t, master)
	t.Logf("killed master %s", master)
	// Any other node would answer a PING: readiness pings every master.
	if got := readyRedis(t, client, p.URL); got != "unavailable" {
		t.Fatalf("/readyz redis %q with a master dead, want unavailable", got)
	}
	if r := read(); r.Status != http.StatusOK || r.Remaining() != 999 {
		t.Fatalf("read with the bucket's master dead: %d remaining %d, want 200 failing open (999)", r.Status, r.Remaining())
	}
	r := keyed(during)
	if r.Status != http.StatusServiceUnavailable || r.Code() != "service_unavailable" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("keyed write with its record's master dead: %d %s", r.Status, r.Body)
	}
	killedAt := time.Now()

	// Recovery: wait until the cluster reports the replica promoted
	// (cluster-node-timeout 5 s, then an election), then the service must
	// follow the new slot map at once: it reloads the map after a failed
	// call, so only the first few requests after the promotion may still
	// be refused (go-redis alone would keep the stale map for a minute).
	deadline := time.Now().Add(90 * time.Second)
	bucket := "eventapi:{" + edge.WindowKey("v2:org:"+org.ID) + "}"
	for cluster.MasterOf(t, bucket) == master {
		if time.Now().After(deadline) {
			t.Fatalf("no replica took over from %s", master)
		}
		time.Sleep(200 * time.Millisecond)
	}
	promoted := time.Now()
	// The bound is generous: the map reload is one call, but a loaded
	// machine may take seconds to finish the failover's handshakes.
	recovered := promoted.Add(60 * time.Second)
	for attempt := 1; ; attempt++ {
		r = keyed(during)
		if r.Status == http.StatusCreated {
			break
		}
		if r.Status != http.StatusServiceUnavailable || time.Now().After(recovered) {
			t.Fatalf("keyed write %d after the promotion: %d %s", attempt, r.Status, r.Body)
		}
		time.Sleep(250 * time.Millisecond)
	}
	if r.Header.Get(idempotency.HeaderReplayed) != "" {
		t.Fatalf("keyed write after the failover was a replay: %s", r.Body)
	}
	t.Logf("replica promoted %v after the kill; keyed writes executed again %v after the promotion",
		promoted.Sub(killedAt).Round(time.Millisecond), time.Since(promoted).Round(time.Millisecond))
	if got := readyRedis(t, client, p.URL); got != "ok" {
		t.Fatalf("/readyz redis %q after the failover, want ok", got)
	}
	if again := keyed(during); again.Status != http.StatusCreated || again.Header.Get(idempotency.HeaderReplayed) != "true" {
		t.Fatalf("replay after the failover: %d %s", again.Status, again.Body)
	}
	// Counted again: successive reads see Remaining fall (a fail-open
	// always reports limit - 1).
	for {
		a, b := read(), read()
		if a.Status != http.StatusOK || b.Status != http.StatusOK {
			t.Fatalf("reads after the failover: %d, %d", a.Status, b.Status)
		}
		if a.Remaining() < 999 && b.Remaining() == a.Remaining()-1 {
			break
		}
		if time.Now().After(promoted.Add(30 * time.Second)) {
			t.Fatalf("the limiter still fails open after the failover: remaining %d then %d", a.Remaining(), b.Remaining())
		}
		time.Sleep(200 * time.Millisecond)
	}
	var failOpen, unavailable bool
	for _, w := range p.Warnings() {
		failOpen = failOpen || strings.Contains(w, "failing open")
		unavailable = unavailable || strings.Contains(w, "refusing keyed writes")
	}
	if !failOpen || !unavailable {
		t.Fatalf("the outage was not logged (fail-open %v, keyed writes refused %v): %v", failOpen, unavailable, p.Warnings())
	}
}

// readyRedis is the redis field of the process's /readyz answer.
func readyRedis(t *testing.T, client *http.Client, base string) string {
	t.Helper()
	res, err := client.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct{ Redis string }
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Redis
}
