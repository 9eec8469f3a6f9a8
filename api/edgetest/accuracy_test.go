package edgetest

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/middleware/ratelimit"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/redistest"
)

// The limit and window of the accuracy test: the organization's override
// (eventapi orgs update --rate-limit 50) and EVENTAPI_RATE_WINDOW=2s.
const (
	accLimit  = 50
	accWindow = 2 * time.Second
)

// hit is one request of the accuracy test.
type hit struct {
	*reply
	server int
}

func (h hit) admitted() bool { return h.Status == http.StatusOK }

// TestRateLimitIsExactAcrossProcesses runs two `eventapi serve` processes on
// one database and one Redis (a server of the test's own, then the shared
// 3-master Redis Cluster of platform/redistest) and checks that they share one exact sliding
// window: a burst of 200 admits exactly 50, bursts just before and just after
// a window boundary neither let extra requests through nor stall, and no
// rolling window ever holds more than 50 admissions.
//
// The limiter fails open when a Redis reply takes longer than 50 ms, which a
// CPU-starved machine can cause; such a request is admitted uncounted, by
// design. An attempt during which either process logged that it failed open
// proves nothing about exactness, so it is void and repeated with a fresh
// organization (at most three attempts; three void attempts fail the test).
// A process logs its first fail-open at once and then at most once per
// ratelimit.LogEvery, so a void attempt is followed by that long a pause.
func TestRateLimitIsExactAcrossProcesses(t *testing.T) {
	t.Run("redis", func(t *testing.T) { rateLimitIsExact(t, startRedis(t).URL()) })
	t.Run("redis-cluster", func(t *testing.T) { rateLimitIsExact(t, redistest.SharedClusterURL(t)) })
}

func rateLimitIsExact(t *testing.T, redisURL string) {
	env := []string{
		"EVENTAPI_DATABASE_URL=" + pgtest.NewEmptyDatabase(t),
		"EVENTAPI_REDIS_URL=" + redisURL,
		"EVENTAPI_RATE_WINDOW=" + accWindow.String(),
		"OTEL_SDK_DISABLED=true",
	}
	cli(t, env, nil, "migrate", "up")
	procs := []*process{serve(t, env), serve(t, env)}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}, Timeout: 30 * time.Second}
	t.Cleanup(client.CloseIdleConnections)
	for _, p := range procs {
		if r := viaHTTP(t, client, p.URL, "GET", "/livez", "", ""); r.Status != 200 {
			t.Fatalf("livez: %d", r.Status)
		}
	}
	for attempt := 1; attempt <= 3; attempt++ {
		key := accuracyKey(t, env, attempt)
		c := &collector{}
		accuracyScenario(t, c, client, []string{procs[0].URL, procs[1].URL}, key)
		var failOpen []string
		for i, p := range procs {
			for _, w := range p.Warnings() {
				if strings.Contains(w, "failing open") {
					failOpen = append(failOpen, fmt.Sprintf("process %d: %s", i, w))
				}
			}
		}
		if len(failOpen) > 0 {
			t.Logf("attempt %d void: the limiter failed open (Redis slower than 50 ms under load): %v", attempt, failOpen)
			for _, p := range c.problems {
				t.Logf("attempt %d (void): %s", attempt, p)
			}
			for _, p := range procs {
				p.ClearWarnings()
			}
			// Each process logs a fail-open at most once per LogEvery; wait
			// it out so that a fail-open in the next attempt is logged too.
			time.Sleep(ratelimit.LogEvery)
			continue
		}
		if len(c.problems) > 0 {
			t.Fatalf("attempt %d:\n%s", attempt, strings.Join(c.problems, "\n"))
		}
		return
	}
	t.Fatal("three attempts were void because the limiter failed open; the machine is too loaded to measure exactness")
}

// collector gathers the problems of one attempt.
type collector struct{ problems []string }

func (c *collector) errorf(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// accuracyKey creates an organization limited to 50 requests per window and
// a live key for it, through the CLI.
func accuracyKey(t *testing.T, env []string, attempt int) string {
	var org struct{ ID string }
	cli(t, env, &org, "orgs", "create", "--name", fmt.Sprintf("Accuracy Rentals %d", attempt), "--output", "json")
	var updated struct {
		RateLimit int `json:"rate_limit"`
	}
	cli(t, env, &updated, "orgs", "update", org.ID, "--rate-limit", strconv.Itoa(accLimit), "--output", "json")
	if updated.RateLimit != accLimit {
		t.Fatalf("orgs update printed rate_limit %d", updated.RateLimit)
	}
	var key struct{ Key string }
	cli(t, env, &key, "keys", "create", "--org", org.ID, "--name", "accuracy", "--scopes", "all", "--mode", "live", "--output", "json")
	return key.Key
}

func accuracyScenario(t *testing.T, c *collector, client *http.Client, servers []string, key string) {
	burst := func(n int) []hit {
		out := make([]hit, n)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				out[i] = hit{viaHTTP(t, client, servers[i%2], "GET", "/api/v2/health", key, ""), i % 2}
			}(i)
		}
		wg.Wait()
		return out
	}
	var all []hit

	// A: 200 concurrent requests into an empty window: exactly 50 pass, and
	// their Remaining values are 49..0 once each (one shared, serialised log).
	a := burst(200)
	all = append(all, a...)
	checkExactBurst(t, c, "burst A", a, accLimit)
	firstA, lastA := span(a)

	// B: just before A's window ends every request is still refused.
	sleepUntil(maxTime(lastA.Add(50*time.Millisecond), firstA.Add(accWindow-600*time.Millisecond)))
	b := burst(60)
	all = append(all, b...)
	checked := 0
	for _, h := range b {
		if h.Received.Before(firstA.Add(accWindow)) {
			checked++
			if h.admitted() {
				c.errorf("burst B: admitted at %v, before A's first slot could free at %v", h.Received, firstA.Add(accWindow))
			}
		}
	}
	t.Logf("burst B: %d of %d responses arrived before the boundary and were checked", checked, len(b))

	// C: once everything admitted so far has left the window, a burst gets
	// exactly the full limit again.
	_, lastB := span(b)
	sleepUntil(maxTime(lastA, lastB).Add(accWindow + 100*time.Millisecond))
	cc := burst(200)
	all = append(all, cc...)
	checkExactBurst(t, c, "burst C", cc, accLimit)
	firstC, lastC := span(cc)

	// D: a steady stream across C's window boundary: nothing passes before
	// C's first slot frees, then slots free one by one as C's requests age out.
	sleepUntil(firstC.Add(accWindow - 500*time.Millisecond))
	d := stream(t, client, servers, key, lastC.Add(accWindow+400*time.Millisecond))
	all = append(all, d...)
	passed := 0
	for _, h := range d {
		if h.admitted() {
			passed++
			if h.Received.Before(firstC.Add(accWindow)) {
				c.errorf("stream D: admitted at %v, before C's first slot could free at %v", h.Received, firstC.Add(accWindow))
			}
		}
	}
	t.Logf("stream D: %d requests, %d admitted across the boundary", len(d), passed)
	if passed == 0 || passed > accLimit {
		c.errorf("stream D admitted %d; want 1..%d as C's slots free up", passed, accLimit)
	}

	checkRollingWindows(t, c, all)
	for _, h := range all {
		if h.Remaining() < 0 {
			c.errorf("X-RateLimit-Remaining %q (status %d)", h.Header.Get("X-RateLimit-Remaining"), h.Status)
		}
		if h.Header.Get("X-RateLimit-Limit") != strconv.Itoa(accLimit) || h.Header.Get("X-RateLimit-Reset") == "" {
			c.errorf("status %d without the rate-limit headers: %v", h.Status, h.Header)
		}
		if h.Status == http.StatusTooManyRequests && h.Header.Get("Retry-After") == "" {
			c.errorf("429 without Retry-After")
		}
		if h.Status != http.StatusOK && h.Status != http.StatusTooManyRequests {
			c.errorf("unexpected status %d: %s", h.Status, h.Body)
		}
	}
}

// checkExactBurst checks that exactly limit requests of a burst into an empty
// window passed, on both servers together, with Remaining limit-1..0 each
// seen once.
func checkExactBurst(t *testing.T, c *collector, name string, hits []hit, limit int) {
	seen := map[int]int{}
	perServer := [2]int{}
	for _, h := range hits {
		if h.admitted() {
			seen[h.Remaining()]++
			perServer[h.server]++
		} else if h.Status != http.StatusTooManyRequests {
			c.errorf("%s: status %d: %s", name, h.Status, h.Body)
		}
	}
	total := perServer[0] + perServer[1]
	t.Logf("%s: %d admitted (%d + %d per process) of %d", name, total, perServer[0], perServer[1], len(hits))
	if total != limit {
		c.errorf("%s: %d admitted, want exactly %d", name, total, limit)
		return
	}
	for r := 0; r < limit; r++ {
		if seen[r] != 1 {
			c.errorf("%s: Remaining %d seen %d times; the two processes did not share one window", name, r, seen[r])
		}
	}
}

// stream sends requests from 8 workers, alternating servers, until end.
func stream(t *testing.T, client *http.Client, servers []string, key string, end time.Time) []hit {
	var mu sync.Mutex
	var out []hit
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; time.Now().Before(end); i++ {
				s := (w + i) % 2
				h := hit{viaHTTP(t, client, servers[s], "GET", "/api/v2/health", key, ""), s}
				mu.Lock()
				out = append(out, h)
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		}(w)
	}
	wg.Wait()
	return out
}

// checkRollingWindows fails when more than accLimit admissions certainly fall
// inside one window: the server admitted each request between its send and
// receive times, so admissions j with Sent_j >= Sent_i and Received_j <
// Sent_i + window all lie inside [Sent_i, Sent_i + window).
func checkRollingWindows(t *testing.T, c *collector, all []hit) {
	var adm []hit
	for _, h := range all {
		if h.admitted() {
			adm = append(adm, h)
		}
	}
	sort.Slice(adm, func(i, j int) bool { return adm[i].Sent.Before(adm[j].Sent) })
	worst := 0
	for i := range adm {
		end := adm[i].Sent.Add(accWindow)
		n := 0
		for j := i; j < len(adm); j++ {
			if adm[j].Received.Before(end) {
				n++
			}
		}
		worst = max(worst, n)
	}
	t.Logf("%d admissions in all; at most %d certainly inside one %v window", len(adm), worst, accWindow)
	if worst > accLimit {
		c.errorf("%d admissions inside one rolling window, limit %d", worst, accLimit)
	}
}

func span(hits []hit) (first, last time.Time) {
	first, last = hits[0].Sent, hits[0].Received
	for _, h := range hits {
		if h.Sent.Before(first) {
			first = h.Sent
		}
		if h.Received.After(last) {
			last = h.Received
		}
	}
	return first, last
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func sleepUntil(t time.Time) { time.Sleep(time.Until(t)) }
