//go:build cpusaturation

package edgetest

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"runtime"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/pgtest"
)

// Build tag cpusaturation: this test saturates the machine's CPU, so it must
// not run beside other heavy tests. scripts/test.sh runs it on its own after
// the main suite:
//
//	go test -tags cpusaturation -run TestKeyedWritesSurviveCPUSaturation -count=1 -v ./api/edgetest/

// saturation bounds the competing busy loops; they are killed after it at
// the latest.
const saturation = 20 * time.Second

// TestKeyedWritesSurviveCPUSaturation runs `eventapi serve` with the
// production Redis settings (limiter 50 ms; idempotency records 500 ms per
// attempt, retried once after a timeout) and its own redis-server, starts
// 2 busy loops per CPU beside them, and sends keyed writes (POST with a fresh
// Idempotency-Key) from 8 workers while the loops run. Every keyed write
// must succeed, at the latest on the one retry with the same key that a
// client makes after a 503: a busy pod must not refuse writes that Redis
// would have served. The status counts, and how many writes needed the
// retry, are logged; there is no timing threshold.
func TestKeyedWritesSurviveCPUSaturation(t *testing.T) {
	rs := startRedis(t)
	env := []string{
		"EVENTAPI_DATABASE_URL=" + pgtest.NewEmptyDatabase(t),
		"EVENTAPI_REDIS_URL=" + rs.URL(),
		"OTEL_SDK_DISABLED=true",
		// Writes are not limited here: the test is about Redis, not quotas.
		"EVENTAPI_V2_RATE_LIMIT=1000000",
	}
	cli(t, env, nil, "migrate", "up")
	var org struct{ ID string }
	cli(t, env, &org, "orgs", "create", "--name", "Busy Rentals", "--output", "json")
	var key struct{ Key string }
	cli(t, env, &key, "keys", "create", "--org", org.ID, "--name", "busy", "--scopes", "all", "--mode", "live", "--output", "json")
	p := serve(t, env)
	client := &http.Client{Timeout: 2 * time.Minute}
	t.Cleanup(client.CloseIdleConnections)
	if r := viaHTTP(t, client, p.URL, "POST", "/api/v2/clients", key.Key, `{"name":"warm-up"}`, keyHeader, "warm-up"); r.Status != http.StatusCreated {
		t.Fatalf("keyed write before the load: %d %s", r.Status, r.Body)
	}

	ctx, stop := context.WithTimeout(context.Background(), saturation)
	defer stop()
	burners := 2 * runtime.NumCPU()
	var running sync.WaitGroup
	for i := 0; i < burners; i++ {
		cmd := exec.CommandContext(ctx, "sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatalf("start busy loop: %v", err)
		}
		running.Add(1)
		go func() { defer running.Done(); _ = cmd.Wait() }()
	}
	t.Cleanup(func() { stop(); running.Wait() })
	t.Logf("%d busy loops on %d CPUs for %v", burners, runtime.NumCPU(), saturation)

	// Writes stop a few seconds before the loops are killed, so every one
	// of them runs on the saturated machine.
	until := time.Now().Add(saturation - 3*time.Second)
	var mu sync.Mutex
	statuses := map[int]int{}
	retried := 0
	var failures []string
	var workers sync.WaitGroup
	for w := 0; w < 8; w++ {
		workers.Add(1)
		go func(w int) {
			defer workers.Done()
			for i := 0; time.Now().Before(until); i++ {
				k := fmt.Sprintf("busy-%d-%d", w, i)
				body := fmt.Sprintf(`{"name":%q}`, k)
				r := viaHTTP(t, client, p.URL, "POST", "/api/v2/clients", key.Key, body, keyHeader, k)
				if r.Status == http.StatusServiceUnavailable {
					// A 503 is retryable with the same key (docs/edge.md),
					// and a client retries it: the write must then succeed.
					mu.Lock()
					retried++
					mu.Unlock()
					r = viaHTTP(t, client, p.URL, "POST", "/api/v2/clients", key.Key, body, keyHeader, k)
				}
				mu.Lock()
				statuses[r.Status]++
				if r.Status != http.StatusCreated && len(failures) < 10 {
					failures = append(failures, fmt.Sprintf("%s: %d %s", k, r.Status, r.Body))
				}
				mu.Unlock()
			}
		}(w)
	}
	workers.Wait()
	codes := make([]int, 0, len(statuses))
	total := 0
	for c, n := range statuses {
		codes = append(codes, c)
		total += n
	}
	sort.Ints(codes)
	summary := ""
	for _, c := range codes {
		summary += fmt.Sprintf(" %d×%d", c, statuses[c])
	}
	t.Logf("keyed writes under CPU saturation: %d sent,%s after retries; 503s answered first and retried: %d", total, summary, retried)
	if total == 0 {
		t.Fatal("no keyed write completed during the saturation")
	}
	if statuses[http.StatusCreated] != total {
		t.Fatalf("%d of %d keyed writes failed under CPU saturation; first: %v", total-statuses[http.StatusCreated], total, failures)
	}
}
