package edge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/redistest"
)

// privateRedis starts a redis-server of the test's own (its script cache is
// flushed below, which a shared server's other users should not see).
func privateRedis(t *testing.T) string { return privateRedisWith(t) }

// privateRedisWith is privateRedis with more redis-server arguments.
func privateRedisWith(t *testing.T, args ...string) string {
	t.Helper()
	port := freePort(t)
	t.Cleanup(startRedis(t, port, args...))
	return fmt.Sprintf("redis://127.0.0.1:%d/0", port)
}

// freePort is a loopback TCP port free when it is returned.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startRedis starts a redis-server of the test's own on port, waits until
// it answers, and returns what stops it.
func startRedis(t *testing.T, port int, args ...string) (stop func()) {
	t.Helper()
	cmd := exec.Command("redis-server", append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", t.TempDir()}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("redis-server is required for this test: %v", err)
	}
	stop = func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port), MaxRetries: -1})
	defer c.Close()
	for range 100 {
		if c.Ping(context.Background()).Err() == nil {
			return stop
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	t.Fatalf("redis-server on port %d did not answer", port)
	return nil
}

// redisOnPort starts a redis-server on port, as a plain Redis or as a
// Cluster node that holds every slot itself, and returns what stops it.
func redisOnPort(t *testing.T, port int, cluster bool) (stop func()) {
	t.Helper()
	if !cluster {
		return startRedis(t, port)
	}
	dir := t.TempDir()
	stop = startRedis(t, port, "--cluster-enabled", "yes", "--cluster-config-file", dir+"/nodes.conf")
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port)})
	defer c.Close()
	if err := c.Do(context.Background(), "CLUSTER", "ADDSLOTSRANGE", "0", "16383").Err(); err != nil {
		stop()
		t.Fatal(err)
	}
	for range 100 {
		if info, _ := c.ClusterInfo(context.Background()).Result(); strings.HasPrefix(info, "cluster_state:ok") {
			return stop
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	t.Fatal("the one-node cluster did not reach cluster_state:ok")
	return nil
}

func testName() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// TestAdmissionsBatched: concurrent admissions of one process go out
// batched (a script call carries more than one) and stay exact (a burst of
// 120 on a limit of 40 admits exactly 40, each Remaining given once); a
// batch sent right after the script cache was flushed (a Redis restart)
// falls back to EVAL, as a single Admit does, whether it is one call or a
// pipeline of several.
func TestAdmissionsBatched(t *testing.T) {
	for _, tc := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"redis", privateRedis},
		{"redis-cluster", func(t *testing.T) string { return redistest.SharedClusterURL(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := "edge-batch:" + testName() + ":"
			r := prefixedRedis(t, tc.url(t), prefix)
			ctx := context.Background()
			hook := &scriptHook{}
			r.Client().AddHook(hook)

			const n, limit = 120, 40
			key := testName()
			var admitted atomic.Int64
			remaining := make([]atomic.Int64, limit)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() {
					<-start
					d, err := r.Admit(ctx, key, limit, time.Minute)
					if err != nil {
						t.Errorf("Admit: %v", err)
						return
					}
					if d.Allowed {
						admitted.Add(1)
						remaining[d.Remaining].Add(1)
					}
				})
			}
			close(start)
			wg.Wait()
			if got := admitted.Load(); got != limit {
				t.Errorf("a burst of %d admitted %d, want exactly %d", n, got, limit)
			}
			for i := range remaining {
				if c := remaining[i].Load(); c != 1 {
					t.Errorf("Remaining %d given %d times, want once", i, c)
				}
			}
			if m := hook.largest(); m < 2 {
				t.Errorf("the largest script call carried %d admissions: concurrent admissions were not batched", m)
			}

			// After SCRIPT FLUSH: a batch of one script call (5 admissions
			// of one window under a limit of 3), then one of several calls
			// (pipelined: 5 such admissions and more windows than one call
			// takes, which on the cluster spread over many slots), each
			// falls back to EVAL.
			for _, size := range []int{0, maxScriptKeys + 5} {
				flushed := testName()
				if err := r.Client().ScriptFlush(ctx).Err(); err != nil {
					t.Fatal(err)
				}
				hook.reset()
				batch := make([]*admission, 5, 5+size)
				for i := range batch {
					batch[i] = &admission{ctx: ctx, key: r.Key(WindowKey(flushed)),
						window: time.Minute.Microseconds(), limit: 3}
				}
				for range size {
					batch = append(batch, &admission{ctx: ctx, key: r.Key(WindowKey(testName())),
						window: time.Minute.Microseconds(), limit: 1})
				}
				r.admitBatch(ctx, batch)
				allowed := 0
				for i, a := range batch {
					if a.err != nil {
						t.Fatalf("admission %d of %d after SCRIPT FLUSH: %v", i, len(batch), a.err)
					}
					if d := a.decision(); d.Allowed != (i < 3 || i >= 5) {
						t.Errorf("admission %d of %d after SCRIPT FLUSH: %+v", i, len(batch), d)
					}
					if a.decision().Allowed {
						allowed++
					}
				}
				hook.mu.Lock()
				calls := hook.calls
				hook.mu.Unlock()
				if want := 3 + size; allowed != want {
					t.Errorf("after SCRIPT FLUSH a batch of %d admitted %d, want %d", len(batch), allowed, want)
				}
				if size > 0 && calls < 4 { // at least 2 EVALSHA and 2 EVAL
					t.Errorf("the batch of %d took %d script calls, want at least two, each sent again", len(batch), calls)
				}
			}
		})
	}
}

// scriptHook counts the admission script calls that reach the client, alone
// or in a pipeline.
type scriptHook struct {
	mu    sync.Mutex
	calls int
	keys  [][]string // each call's keys
}

func (h *scriptHook) record(cmds ...redis.Cmder) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range cmds {
		if c.Name() != "evalsha" && c.Name() != "eval" {
			continue
		}
		args := c.Args() // evalsha sha numkeys key… arg…
		n, _ := args[2].(int)
		var keys []string
		for _, k := range args[3 : 3+n] {
			keys = append(keys, k.(string))
		}
		h.calls++
		h.keys = append(h.keys, keys)
	}
}

// largest is the most admissions one call carried.
func (h *scriptHook) largest() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := 0
	for _, k := range h.keys {
		m = max(m, len(k))
	}
	return m
}

func (h *scriptHook) reset() {
	h.mu.Lock()
	h.calls, h.keys = 0, nil
	h.mu.Unlock()
}

func (h *scriptHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *scriptHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.record(cmd)
		return next(ctx, cmd)
	}
}
func (h *scriptHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.record(cmds...)
		return next(ctx, cmds)
	}
}

// windowCase is a window as earlier admissions left it and the outcome of
// one more admission. Entries are times relative to Redis's clock when the
// case is written: live ones half an hour old in a window of an hour,
// expired ones older than the window, ahead ones in the future (a clock that
// stepped back), so nothing changes class while the test runs.
type windowCase struct {
	name    string
	entries []time.Duration
	limit   int
	allowed bool
	// frees is the index in entries of the entry whose expiry is the
	// Reset; -1 for the admission's own time (or, when nothing is left,
	// the time of the call).
	frees int
}

const caseWindow = time.Hour

func live(n int) []time.Duration {
	var e []time.Duration
	for i := range n {
		e = append(e, -30*time.Minute+time.Duration(i)*time.Second)
	}
	return e
}

func expired(n int) []time.Duration {
	var e []time.Duration
	for i := range n {
		e = append(e, -caseWindow-10*time.Minute+time.Duration(i)*time.Second)
	}
	return e
}

func ahead(n int) []time.Duration {
	var e []time.Duration
	for i := range n {
		e = append(e, 10*time.Minute+time.Duration(i)*time.Second)
	}
	return e
}

// windowCases cover each branch of the script's cut (none left, one, a
// few, more than it peeks at, all), a full window, a lowered limit, a limit
// of 0 and a clock that stepped back.
var windowCases = []windowCase{
	{"empty", nil, 3, true, -1},
	{"the only entry left", expired(1), 3, true, -1},
	{"one of two left", append(expired(1), live(1)...), 3, true, 1},
	{"two of three left", append(expired(2), live(1)...), 3, true, 2},
	{"all three left", expired(3), 3, true, -1},
	{"peek entries left, nothing else", expired(peek), 3, true, -1},
	{"peek entries left, one live", append(expired(peek), live(1)...), 3, true, peek},
	{"ten left, five live", append(expired(10), live(5)...), 10, true, 10},
	{"full", live(3), 3, false, 0},
	{"full after a cut", append(expired(2), live(3)...), 3, false, 2},
	{"limit lowered to 2", live(4), 2, false, 2},
	{"limit lowered to 1 after a cut", append(expired(2), live(4)...), 1, false, 5},
	{"limit 0, empty", nil, 0, false, -1},
	{"limit 0", live(2), 0, false, 1},
	{"clock stepped back", append(live(1), ahead(2)...), 10, true, 0},
	{"clock stepped back, all ahead", ahead(1), 10, true, 0},
}

// writeCase writes the case's window under key, with the expiry an
// earlier release gave it (1 s after its newest entry leaves the window),
// and returns the entries' times (µs).
func writeCase(t *testing.T, c redis.UniversalClient, key string, now time.Time, tc windowCase) []int64 {
	t.Helper()
	ctx := context.Background()
	var times []int64
	var values []any
	for _, e := range tc.entries {
		times = append(times, now.Add(e).UnixMicro())
		values = append(values, now.Add(e).UnixMicro())
	}
	if len(values) > 0 {
		newest := time.UnixMicro(times[len(times)-1])
		if err := c.RPush(ctx, key, values...).Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.PExpireAt(ctx, key, newest.Add(caseWindow+time.Second)).Err(); err != nil {
			t.Fatal(err)
		}
	}
	return times
}

// checkCase checks a decision and the window it left: the count, order and
// times of the entries, the Reset, and the key's expiry (after the newest
// entry leaves the window, by at most expiryMargin + expiryStep when the
// admission set it), or no key when nothing is left.
func checkCase(t *testing.T, c redis.UniversalClient, key string, tc windowCase, times []int64, before, after time.Time, d Decision) {
	t.Helper()
	ctx := context.Background()
	cut := before.Add(-caseWindow).UnixMicro()
	var kept []int64
	for _, v := range times {
		if v > cut {
			kept = append(kept, v)
		}
	}
	count := len(kept)
	if tc.allowed {
		count++
	}
	if d.Allowed != tc.allowed || d.Remaining != max(0, tc.limit-count) || d.Limit != tc.limit {
		t.Fatalf("%+v, want allowed %v with %d remaining of %d", d, tc.allowed, max(0, tc.limit-count), tc.limit)
	}
	reset := func(us int64) time.Time { return time.UnixMicro(us).Add(caseWindow).UTC() }
	switch {
	case tc.frees >= 0:
		if want := reset(times[tc.frees]); !d.Reset.Equal(want) {
			t.Fatalf("Reset %v, want entry %d's expiry %v", d.Reset, tc.frees, want)
		}
	case count == 0:
		if d.Reset.Before(before) || d.Reset.After(after) {
			t.Fatalf("Reset %v of an empty window, want the call's time (%v..%v)", d.Reset, before, after)
		}
	default:
		if d.Reset.Before(before.Add(caseWindow)) || d.Reset.After(after.Add(caseWindow)) {
			t.Fatalf("Reset %v, want the admission's expiry (%v..%v)", d.Reset, before.Add(caseWindow), after.Add(caseWindow))
		}
	}
	if tc.allowed && d.RetryAfter != 0 {
		t.Fatalf("RetryAfter %v of an admission", d.RetryAfter)
	}
	if !tc.allowed && (d.RetryAfter < d.Reset.Sub(after) || d.RetryAfter > d.Reset.Sub(before)) {
		t.Fatalf("RetryAfter %v, want the time from the call to Reset %v (%v..%v)", d.RetryAfter, d.Reset, d.Reset.Sub(after), d.Reset.Sub(before))
	}
	raw, err := c.LRange(ctx, key, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != count {
		t.Fatalf("the window holds %d entries, want %d: %v", len(raw), count, raw)
	}
	got := make([]int64, len(raw))
	for i, v := range raw {
		if got[i], err = strconv.ParseInt(v, 10, 64); err != nil {
			t.Fatalf("entry %d is %q", i, v)
		}
	}
	if !slices.IsSorted(got) {
		t.Fatalf("the window is out of time order: %v", got)
	}
	if !slices.Equal(got[:len(kept)], kept) {
		t.Fatalf("the window's entries %v, want the live ones %v first", got, kept)
	}
	if tc.allowed {
		newest := got[len(got)-1]
		lo, hi := before.UnixMicro(), after.UnixMicro()
		if len(kept) > 0 && kept[len(kept)-1] > lo {
			lo, hi = kept[len(kept)-1], kept[len(kept)-1] // appended at the newest entry's time
		}
		if newest < lo || newest > hi {
			t.Fatalf("the new entry is at %d, want %d..%d", newest, lo, hi)
		}
	}
	if count == 0 {
		if n, err := c.Exists(ctx, key).Result(); err != nil || n != 0 {
			t.Fatalf("an empty window's key exists (%d, %v)", n, err)
		}
		return
	}
	at, err := c.PExpireTime(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	leaves := time.UnixMicro(got[len(got)-1]).Add(caseWindow)
	expires := time.UnixMilli(int64(at / time.Millisecond))
	if !expires.After(leaves) {
		t.Fatalf("the key expires at %v, before its newest entry leaves the window at %v", expires, leaves)
	}
	if tc.allowed && expires.After(leaves.Add(expiryMargin+expiryStep)) {
		t.Fatalf("the key expires at %v, more than %v after its newest entry leaves the window at %v", expires, expiryMargin+expiryStep, leaves)
	}
}

// sharedRedises are the Redis deployments a test runs against: the suite's
// single Redis and its shared Redis Cluster.
var sharedRedises = []struct {
	name string
	url  func(t *testing.T) string
}{
	{"redis", func(*testing.T) string { return pgtest.RedisURL() }},
	{"redis-cluster", func(t *testing.T) string { return redistest.SharedClusterURL(t) }},
}

// TestWindowCases runs each windowCase through Admit, and then all of them
// in one batch together with three admissions of one fresh window under a
// limit of 2 (the batch's outcomes are mixed, and a key repeats): on a
// single Redis the batch is one script call; on a Redis Cluster, where the
// windows lie in several hash slots, one call per window (admit.go, calls).
func TestWindowCases(t *testing.T) {
	for _, tc := range sharedRedises {
		t.Run(tc.name, func(t *testing.T) {
			prefix := "edge-cases:" + testName() + ":"
			r := prefixedRedis(t, tc.url(t), prefix)
			ctx := context.Background()
			c := r.Client()
			now := func(key string) time.Time {
				t.Helper()
				var cmd *redis.TimeCmd
				if cc, ok := c.(*redis.ClusterClient); ok { // the clock of the node that holds key
					node, err := cc.MasterForKey(ctx, key)
					if err != nil {
						t.Fatal(err)
					}
					cmd = node.Time(ctx)
				} else {
					cmd = c.Time(ctx)
				}
				tm, err := cmd.Result()
				if err != nil {
					t.Fatal(err)
				}
				return tm
			}

			t.Run("one at a time", func(t *testing.T) {
				for _, wc := range windowCases {
					t.Run(wc.name, func(t *testing.T) {
						bucket := testName()
						key := r.Key(WindowKey(bucket))
						before := now(key)
						times := writeCase(t, c, key, before, wc)
						d, err := r.Admit(ctx, bucket, wc.limit, caseWindow)
						if err != nil {
							t.Fatal(err)
						}
						checkCase(t, c, key, wc, times, before, now(key), d)
					})
				}
			})

			t.Run("one batch", func(t *testing.T) {
				hook := &scriptHook{}
				c.AddHook(hook)
				var batch []*admission
				keys := make([]string, len(windowCases))
				starts := make([]time.Time, len(windowCases))
				times := make([][]int64, len(windowCases))
				for i, wc := range windowCases {
					keys[i] = r.Key(WindowKey(testName()))
					starts[i] = now(keys[i])
					times[i] = writeCase(t, c, keys[i], starts[i], wc)
					batch = append(batch, &admission{ctx: ctx, key: keys[i], window: caseWindow.Microseconds(),
						limit: wc.limit})
				}
				repeated := r.Key(WindowKey(testName()))
				for range 3 {
					batch = append(batch, &admission{ctx: ctx, key: repeated, window: caseWindow.Microseconds(),
						limit: 2})
				}
				hook.reset()
				r.admitBatch(ctx, batch)
				windows := map[string]bool{}
				for _, a := range batch {
					if a.err != nil {
						t.Fatalf("%s: %v", a.key, a.err)
					}
					windows[a.key] = true
				}
				for i, wc := range windowCases {
					t.Run(wc.name, func(t *testing.T) {
						checkCase(t, c, keys[i], wc, times[i], starts[i], now(keys[i]), batch[i].decision())
					})
				}
				for i, a := range batch[len(windowCases):] {
					d := a.decision()
					if want := i < 2; d.Allowed != want || d.Remaining != max(0, 1-i) {
						t.Errorf("admission %d of 3 of one window under a limit of 2: %+v", i+1, d)
					}
				}
				hook.mu.Lock()
				calls, callKeys := hook.calls, hook.keys
				hook.mu.Unlock()
				if !r.cluster {
					if calls != 1 {
						t.Fatalf("a batch of %d admissions on one Redis took %d script calls, want 1", len(batch), calls)
					}
					return
				}
				slots := map[int64]bool{}
				for k := range windows {
					s, err := c.ClusterKeySlot(ctx, k).Result()
					if err != nil {
						t.Fatal(err)
					}
					slots[s] = true
				}
				if len(slots) < 2 {
					t.Fatalf("the batch's windows share one slot: the test shows nothing")
				}
				if calls != len(windows) {
					t.Fatalf("a batch over %d windows (%d slots) took %d script calls, want one per window", len(windows), len(slots), calls)
				}
				for _, keys := range callKeys {
					for _, k := range keys {
						if k != keys[0] {
							t.Fatalf("one script call holds two windows: %v", keys)
						}
					}
				}
			})
		})
	}
}

// TestWindowKeyExpiry: a window's key outlives its newest entry's window
// (an admission whose expiry falls in the same expiryStep as the newest
// entry's leaves the key's expiry alone, one in a later step moves it, and
// both are seen here), by at most expiryMargin + expiryStep, and it is
// gone once that entry has left: not before (Redis's clock, read when the
// key is seen gone, is past the newest entry's expiry).
func TestWindowKeyExpiry(t *testing.T) {
	for _, tc := range sharedRedises {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			prefix := "edge-expiry:" + testName() + ":"
			r := prefixedRedis(t, tc.url(t), prefix)
			ctx := context.Background()
			const window = time.Second
			bucket := testName()
			key := r.Key(WindowKey(bucket))
			c := r.Client()
			var node redis.Cmdable = c
			if cc, ok := c.(*redis.ClusterClient); ok {
				var err error
				if node, err = cc.MasterForKey(ctx, key); err != nil {
					t.Fatal(err)
				}
			}
			newest := func() time.Time {
				t.Helper()
				v, err := c.LIndex(ctx, key, -1).Int64()
				if err != nil {
					t.Fatalf("the newest entry: %v", err)
				}
				return time.UnixMicro(v)
			}
			expiry := func() time.Time {
				t.Helper()
				at, err := c.PExpireTime(ctx, key).Result()
				if err != nil || at < 0 {
					t.Fatalf("the key's expiry: %v, %v", at, err)
				}
				return time.UnixMilli(int64(at / time.Millisecond))
			}
			// After each admission the key's expiry is pushed 1 ms later by
			// hand: an admission that leaves the expiry alone leaves that
			// mark, one that sets it replaces it.
			var kept, moved int
			for i := 0; kept == 0 || moved == 0; i++ {
				if i == 1000 {
					t.Fatalf("after %d admissions the expiry was kept %d and moved %d times", i, kept, moved)
				}
				marked := time.Time{}
				if i > 0 {
					marked = expiry().Add(time.Millisecond)
					if err := c.PExpireAt(ctx, key, marked).Err(); err != nil {
						t.Fatal(err)
					}
				}
				if d, err := r.Admit(ctx, bucket, 1000, window); err != nil || !d.Allowed {
					t.Fatalf("admission %d: %+v, %v", i+1, d, err)
				}
				leaves, expires, slack := newest().Add(window), expiry(), time.Duration(0)
				switch {
				case i == 0:
				case expires.Equal(marked):
					kept++
					slack = time.Millisecond
				default:
					moved++
				}
				if expires.Before(leaves.Add(expiryMargin)) || expires.After(leaves.Add(expiryMargin+expiryStep+slack)) {
					t.Fatalf("admission %d: the key expires at %v, want %v to %v after its newest entry leaves the window at %v",
						i+1, expires, expiryMargin, expiryMargin+expiryStep, leaves)
				}
				time.Sleep(expiryStep / 8) // a few admissions per step
			}
			leaves := newest().Add(window)
			for i := 0; ; i++ {
				n, err := c.Exists(ctx, key).Result()
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					break
				}
				if i == 3000 {
					t.Fatal("the key never expired")
				}
				time.Sleep(10 * time.Millisecond)
			}
			now, err := node.Time(ctx).Result()
			if err != nil {
				t.Fatal(err)
			}
			if now.Before(leaves) {
				t.Fatalf("the key was gone at %v, before its newest entry left the window at %v", now, leaves)
			}
		})
	}
}

// prefixedRedis connects to the Redis at url with every key under prefix,
// patient with a loaded machine, and removes its keys when the test ends.
func prefixedRedis(t *testing.T, url, prefix string) *Redis {
	t.Helper()
	r, err := NewRedis(url, RedisOptions{Prefix: prefix, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = redistest.DeleteKeys(context.Background(), r.Client(), prefix+"*")
		_ = r.Close()
	})
	return r
}
