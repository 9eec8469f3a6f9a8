package edge_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/redistest"
)

// The contract every Store implementation keeps, run against the in-process
// store, the real Redis (127.0.0.1:6379 unless EVENTAPI_TEST_REDIS_URL says
// otherwise) and a real Redis Cluster of 3 masters with a replica each
// (platform/redistest: EVENTAPI_TEST_REDIS_CLUSTER_URL, or one this test
// starts); keys are isolated by a random prefix. Windows are real time, so
// the sliding cases sleep; their margins are hundreds of milliseconds.

type implementation struct {
	name string
	open func(t *testing.T) edge.Store
}

var implementations = []implementation{
	{"memory", func(*testing.T) edge.Store { return edge.NewMemory() }},
	{"redis", func(t *testing.T) edge.Store { return openRedis(t, pgtest.RedisURL()) }},
	{"redis-cluster", func(t *testing.T) edge.Store { return openRedis(t, redistest.SharedClusterURL(t)) }},
}

func randomName() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// openRedis connects to the Redis (or Redis Cluster) at url under a fresh
// prefix and deletes the prefix's keys at the end. It fails (never skips)
// when Redis is missing.
func openRedis(t *testing.T, url string) edge.Store {
	t.Helper()
	prefix := "edge-contract:" + randomName() + ":"
	r, err := edge.NewRedis(url, edge.RedisOptions{Prefix: prefix, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Ping(context.Background()); err != nil {
		t.Fatalf("Redis is required for tests and is not reachable at %s: %v", url, err)
	}
	t.Cleanup(func() {
		_ = redistest.DeleteKeys(context.Background(), r.Client(), prefix+"*")
		_ = r.Close()
	})
	return r
}

type contractCase struct {
	name string
	run  func(t *testing.T, s edge.Store)
}

var contractCases = []contractCase{
	{"admits exactly limit, rejected not counted", admitsExactlyLimit},
	{"concurrent admits are exact", concurrentExact},
	{"window slides: slots free one by one", slidesOneByOne},
	{"a lowered limit resets when a slot frees", loweredLimit},
	{"entries that left together are cut together", leaveTogether},
	{"buckets are independent", bucketsIndependent},
	{"set, get, delete", setGetDelete},
	{"delete-if removes only the value it names", deleteIfHolder},
	{"setnx only when absent", setNXOnlyWhenAbsent},
	{"claim stores once and returns the holder", claimOnce},
	{"values expire after their ttl", valuesExpire},
}

func TestContract(t *testing.T) {
	for _, impl := range implementations {
		t.Run(impl.name, func(t *testing.T) {
			for _, tc := range contractCases {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					tc.run(t, impl.open(t))
				})
			}
		})
	}
}

// clockSlack absorbs the difference between the Redis server's clock and the
// test's (the same machine clock, read microseconds apart).
const clockSlack = 5 * time.Millisecond

func admit(t *testing.T, s edge.Store, key string, limit int, window time.Duration) edge.Decision {
	t.Helper()
	d, err := s.Admit(context.Background(), key, limit, window)
	if err != nil {
		t.Fatalf("Admit: %v", err)
	}
	if d.Limit != limit {
		t.Fatalf("Limit = %d, want %d", d.Limit, limit)
	}
	return d
}

func sleepUntil(t time.Time) { time.Sleep(time.Until(t)) }

func admitsExactlyLimit(t *testing.T, s edge.Store) {
	const limit, window = 5, 10 * time.Second
	key := randomName()
	start := time.Now()
	first := admit(t, s, key, limit, window)
	end := time.Now()
	if !first.Allowed || first.Remaining != limit-1 || first.RetryAfter != 0 {
		t.Fatalf("first = %+v", first)
	}
	if first.Reset.Before(start.Add(window-clockSlack)) || first.Reset.After(end.Add(window+clockSlack)) {
		t.Fatalf("first.Reset = %v, want the admission time + window (%v..%v)", first.Reset, start.Add(window), end.Add(window))
	}
	for i := 1; i < limit; i++ {
		d := admit(t, s, key, limit, window)
		if !d.Allowed || d.Remaining != limit-1-i {
			t.Fatalf("admit %d = %+v, want allowed with %d remaining", i+1, d, limit-1-i)
		}
		if !d.Reset.Equal(first.Reset) {
			t.Fatalf("admit %d: Reset %v moved from the oldest entry's %v", i+1, d.Reset, first.Reset)
		}
	}
	for i := 0; i < 3; i++ {
		before := time.Now()
		d := admit(t, s, key, limit, window)
		if d.Allowed || d.Remaining != 0 {
			t.Fatalf("over the limit: %+v", d)
		}
		if !d.Reset.Equal(first.Reset) {
			t.Fatalf("rejected: Reset %v, want %v", d.Reset, first.Reset)
		}
		if d.RetryAfter <= 0 || d.RetryAfter > first.Reset.Sub(before)+clockSlack {
			t.Fatalf("RetryAfter = %v, want time until %v", d.RetryAfter, first.Reset)
		}
	}
}

func concurrentExact(t *testing.T, s edge.Store) {
	const limit, workers, each = 50, 40, 5
	key := randomName()
	var mu sync.Mutex
	allowed := map[int]int{} // Remaining -> count among admitted requests
	rejected := 0
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				d, err := s.Admit(context.Background(), key, limit, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if d.Allowed {
					allowed[d.Remaining]++
				} else {
					rejected++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(allowed) != limit || rejected != workers*each-limit {
		t.Fatalf("admitted %d distinct, rejected %d; want exactly %d admitted", len(allowed), rejected, limit)
	}
	for r := 0; r < limit; r++ {
		if allowed[r] != 1 {
			t.Fatalf("Remaining %d seen %d times: admissions were not serialised", r, allowed[r])
		}
	}
}

// slidesOneByOne admits three requests 500 ms apart in a 2 s window, hammers
// the full bucket (rejections must not count), then checks that each slot
// frees exactly when its request leaves the window, one at a time. "Not a
// second slot" holds only until the next request leaves, 500 ms later; a
// machine that stalls past that runs the scenario again.
func slidesOneByOne(t *testing.T, s edge.Store) {
	for attempt := 1; !slideOnce(t, s); attempt++ {
		if attempt == 3 {
			t.Fatal("three times a step of the check came after the next request left the window")
		}
	}
}

// slideOnce runs slidesOneByOne's scenario; false means a stall made it
// inconclusive.
func slideOnce(t *testing.T, s edge.Store) bool {
	const limit, window, gap = 3, 2 * time.Second, 500 * time.Millisecond
	key := randomName()
	var resets []time.Time
	for i := 0; i < limit; i++ {
		if i > 0 {
			time.Sleep(gap)
		}
		d := admit(t, s, key, limit, window)
		if !d.Allowed {
			t.Fatalf("admit %d refused: %+v", i+1, d)
		}
		// An upper bound of this admission's expiry (Decision.Reset
		// reports the oldest entry's).
		resets = append(resets, time.Now().Add(window))
	}
	for i := 0; i < 5; i++ {
		if d := admit(t, s, key, limit, window); d.Allowed {
			t.Fatalf("full bucket admitted: %+v", d)
		}
	}
	d := admit(t, s, key, limit, window)
	oldest := d.Reset
	for i := 1; i < limit+1; i++ {
		sleepUntil(oldest.Add(30 * time.Millisecond))
		d := admit(t, s, key, limit, window)
		next := admit(t, s, key, limit, window)
		// The next request leaves at least gap after the oldest did: both
		// answers are only checked when they came before that.
		if i < limit && !time.Now().Before(oldest.Add(gap-clockSlack)) {
			return false
		}
		if !d.Allowed || d.Remaining != 0 {
			t.Fatalf("step %d: after %v one slot must be free: %+v", i, oldest, d)
		}
		if next.Allowed {
			t.Fatalf("step %d: a second slot freed early: %+v", i, next)
		}
		if !next.Reset.After(oldest) {
			t.Fatalf("step %d: Reset %v did not move past %v", i, next.Reset, oldest)
		}
		if i < limit && next.Reset.After(resets[i].Add(clockSlack)) {
			t.Fatalf("step %d: Reset %v is later than admission %d's expiry %v", i, next.Reset, i+1, resets[i])
		}
		oldest = next.Reset
	}
	return true
}

// loweredLimit: once a bucket holds more entries than its (lowered) limit, a
// slot frees only when enough of them leave for the count to fall below the
// limit, so Reset and RetryAfter name that entry's expiry, not the oldest's
// (which promised a slot seconds too early).
func leaveTogether(t *testing.T, s edge.Store) {
	// An older burst leaves the window while a newer one stays: the next
	// admission counts exactly the newer burst and itself. The check must
	// come after the older burst left and before the newer one starts to;
	// a machine that stalls past that gap gets the scenario again.
	const limit, window, gap, older, newer = 10_000, 2 * time.Second, time.Second, 300, 200
	for attempt := 1; ; attempt++ {
		key := randomName()
		burst := func(n int) {
			for i := range n {
				if d := admit(t, s, key, limit, window); !d.Allowed {
					t.Fatalf("admit %d of %d refused: %+v", i+1, n, d)
				}
			}
		}
		burst(older)
		olderLeft := time.Now().Add(window)
		time.Sleep(gap)
		newerStart := time.Now()
		burst(newer)
		sleepUntil(olderLeft.Add(clockSlack))
		d := admit(t, s, key, limit, window)
		if !time.Now().Before(newerStart.Add(window)) {
			if attempt == 3 {
				t.Fatal("three times the check came after the newer burst began to leave the window")
			}
			continue
		}
		if want := limit - newer - 1; !d.Allowed || d.Remaining != want {
			t.Fatalf("after %d of %d admissions left the window: %+v, want admitted with %d remaining", older, older+newer, d, want)
		}
		if lo := newerStart.Add(window - clockSlack); d.Reset.Before(lo) {
			t.Fatalf("Reset %v, want the newer burst's first expiry, not before %v", d.Reset, lo)
		}
		return
	}
}

func loweredLimit(t *testing.T, s edge.Store) {
	// 4 entries under a limit lowered to n: the entry at index 4 - n (0 is
	// the oldest) must leave before one is admitted; under a limit of 0 the
	// reset is the newest one's expiry (nothing is admitted ever, but
	// nothing fails either).
	for _, n := range []int{3, 2, 1, 0} {
		t.Run(fmt.Sprintf("to %d", n), func(t *testing.T) { loweredTo(t, s, n) })
	}
}

func loweredTo(t *testing.T, s edge.Store, limit int) {
	const window, gap, held = 10 * time.Second, 50 * time.Millisecond, 4
	key := randomName()
	var before, after []time.Time
	for i := range held {
		if i > 0 {
			time.Sleep(gap)
		}
		before = append(before, time.Now())
		if d := admit(t, s, key, held, window); !d.Allowed {
			t.Fatalf("admit %d refused: %+v", i+1, d)
		}
		after = append(after, time.Now())
	}
	asked := time.Now()
	d := admit(t, s, key, limit, window)
	if d.Allowed || d.Remaining != 0 {
		t.Fatalf("%d entries under a limit of %d admitted: %+v", held, limit, d)
	}
	frees := min(held-1, held-limit)
	lo, hi := before[frees].Add(window-clockSlack), after[frees].Add(window+clockSlack)
	if d.Reset.Before(lo) || d.Reset.After(hi) {
		t.Fatalf("Reset %v, want entry %d's expiry (%v..%v)", d.Reset, frees, lo, hi)
	}
	if d.RetryAfter < time.Until(lo) || d.RetryAfter > hi.Sub(asked) {
		t.Fatalf("RetryAfter %v, want the time until entry %d's expiry", d.RetryAfter, frees)
	}
}

func bucketsIndependent(t *testing.T, s edge.Store) {
	a, b := randomName(), randomName()
	if d := admit(t, s, a, 1, time.Minute); !d.Allowed {
		t.Fatal("a refused")
	}
	if d := admit(t, s, a, 1, time.Minute); d.Allowed {
		t.Fatal("a admitted twice")
	}
	if d := admit(t, s, b, 1, time.Minute); !d.Allowed {
		t.Fatal("b refused because of a")
	}
}

func get(t *testing.T, s edge.Store, key string) (string, bool) {
	t.Helper()
	v, ok, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	return string(v), ok
}

func setGetDelete(t *testing.T, s edge.Store) {
	ctx := context.Background()
	key := randomName()
	if _, ok := get(t, s, key); ok {
		t.Fatal("fresh key present")
	}
	steps := []struct {
		do   func() error
		want string
		ok   bool
	}{
		{func() error { return s.Set(ctx, key, []byte("one"), time.Minute) }, "one", true},
		{func() error { return s.Set(ctx, key, []byte("two"), time.Minute) }, "two", true},
		{func() error { return s.Delete(ctx, key) }, "", false},
		{func() error { return s.Delete(ctx, key) }, "", false},
	}
	for i, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if v, ok := get(t, s, key); v != st.want || ok != st.ok {
			t.Fatalf("step %d: Get = %q, %v; want %q, %v", i, v, ok, st.want, st.ok)
		}
	}
}

func deleteIfHolder(t *testing.T, s edge.Store) {
	ctx := context.Background()
	key := randomName()
	steps := []struct {
		do   func() error
		want string
		ok   bool
	}{
		{func() error { return s.DeleteIf(ctx, key, []byte("mine")) }, "", false}, // absent: nothing to do
		{func() error { return s.Set(ctx, key, []byte("theirs"), time.Minute) }, "theirs", true},
		{func() error { return s.DeleteIf(ctx, key, []byte("mine")) }, "theirs", true}, // another holder's: kept
		{func() error { return s.DeleteIf(ctx, key, []byte("theirs")) }, "", false},
	}
	for i, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if v, ok := get(t, s, key); v != st.want || ok != st.ok {
			t.Fatalf("step %d: Get = %q, %v; want %q, %v", i, v, ok, st.want, st.ok)
		}
	}
}

func setNXOnlyWhenAbsent(t *testing.T, s edge.Store) {
	ctx := context.Background()
	key := randomName()
	for i, want := range []bool{true, false, false} {
		ok, err := s.SetNX(ctx, key, []byte{byte('a' + i)}, time.Minute)
		if err != nil || ok != want {
			t.Fatalf("SetNX %d = %v, %v; want %v", i, ok, err, want)
		}
	}
	if v, _ := get(t, s, key); v != "a" {
		t.Fatalf("value = %q, want the first one", v)
	}
}

func claimOnce(t *testing.T, s edge.Store) {
	ctx := context.Background()
	key := randomName()
	prev, claimed, err := s.Claim(ctx, key, []byte("first"), time.Minute)
	if err != nil || !claimed || prev != nil {
		t.Fatalf("first Claim = %q, %v, %v", prev, claimed, err)
	}
	prev, claimed, err = s.Claim(ctx, key, []byte("second"), time.Minute)
	if err != nil || claimed || string(prev) != "first" {
		t.Fatalf("second Claim = %q, %v, %v; want the holder's value", prev, claimed, err)
	}
	if v, _ := get(t, s, key); v != "first" {
		t.Fatalf("value = %q after a lost claim", v)
	}
	// Concurrent claims: exactly one wins.
	key = randomName()
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, claimed, err := s.Claim(ctx, key, []byte("x"), time.Minute)
			if err != nil {
				t.Error(err)
			}
			if claimed {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d concurrent claims won, want 1", wins)
	}
}

func valuesExpire(t *testing.T, s edge.Store) {
	ctx := context.Background()
	const ttl = 2 * time.Second
	setNX, set, claimed := randomName(), randomName(), randomName()
	start := time.Now()
	if ok, err := s.SetNX(ctx, setNX, []byte("v"), ttl); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if err := s.Set(ctx, set, []byte("v"), ttl); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Claim(ctx, claimed, []byte("v"), ttl); err != nil || !ok {
		t.Fatal(ok, err)
	}
	for _, k := range []string{setNX, set, claimed} {
		// A stalled machine may reach this line after the ttl: only an
		// absence within it is a fault.
		if _, ok := get(t, s, k); !ok && time.Since(start) < ttl {
			t.Fatalf("%s gone before its ttl", k)
		}
	}
	// Expiry is waited for, not slept on: each value must be gone within
	// a generous bound past its ttl.
	deadline := start.Add(ttl + 30*time.Second)
	for _, k := range []string{setNX, set, claimed} {
		for {
			if _, ok := get(t, s, k); !ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s still present 30 s after its ttl", k)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if ok, err := s.SetNX(ctx, setNX, []byte("w"), ttl); err != nil || !ok {
		t.Fatalf("SetNX after expiry = %v, %v", ok, err)
	}
	if _, ok, err := s.Claim(ctx, claimed, []byte("w"), ttl); err != nil || !ok {
		t.Fatalf("Claim after expiry = %v, %v", ok, err)
	}
}
