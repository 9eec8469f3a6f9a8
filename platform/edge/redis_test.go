package edge_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// Every key is prefix + {name}: the whole name is the hash tag, so each
// script touches one slot and the layout works on Redis Cluster.
func TestRedisKeysCarryOneHashTag(t *testing.T) {
	prefix := "edge-layout:" + randomName() + ":"
	r, err := edge.NewRedis(pgtest.RedisURL(), edge.RedisOptions{Prefix: prefix, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	t.Cleanup(func() {
		keys, _ := r.Client().Keys(ctx, prefix+"*").Result()
		if len(keys) > 0 {
			r.Client().Del(ctx, keys...)
		}
	})
	if _, err := r.Admit(ctx, "v2:org:abc", 5, 2*time.Second); err != nil {
		t.Fatalf("Redis is required for tests: %v", err)
	}
	if _, _, err := r.Claim(ctx, "idem:abc:0123", []byte("x"), time.Minute); err != nil {
		t.Fatal(err)
	}
	keys, err := r.Client().Keys(ctx, prefix+"*").Result()
	if err != nil || len(keys) != 2 {
		t.Fatalf("keys = %v, %v", keys, err)
	}
	tagged := regexp.MustCompile(`^` + regexp.QuoteMeta(prefix) + `\{[^{}]+\}$`)
	for _, k := range keys {
		if !tagged.MatchString(k) {
			t.Errorf("key %q is not prefix + {name}", k)
		}
		if strings.Contains(k, edge.WindowKey("")) {
			ttl, _ := r.Client().PTTL(ctx, k).Result()
			// It expires 1 to 1.5 s after its newest entry leaves the
			// window (docs/edge.md, "Redis key layout").
			if ttl <= 2*time.Second || ttl > 2*time.Second+1500*time.Millisecond {
				t.Errorf("window key %s has ttl %v, want window + 1 to 1.5 s", k, ttl)
			}
		}
	}
}

// deadlineHook records the time left before each command's deadline.
type deadlineHook struct {
	mu    sync.Mutex
	off   bool
	left  []time.Duration
	names []string
}

// disable stops recording (go-redis has no RemoveHook).
func (h *deadlineHook) disable() {
	h.mu.Lock()
	h.off = true
	h.mu.Unlock()
}

func (h *deadlineHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *deadlineHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h *deadlineHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		dl, ok := ctx.Deadline()
		h.mu.Lock()
		if h.off {
			h.mu.Unlock()
			return next(ctx, cmd)
		}
		h.names = append(h.names, cmd.Name())
		if ok {
			h.left = append(h.left, time.Until(dl))
		} else {
			h.left = append(h.left, -1)
		}
		h.mu.Unlock()
		return next(ctx, cmd)
	}
}

// A Redis that accepts connections and never answers: every operation must
// end with ErrUnavailable, each under its purpose's bound (checked
// structurally through a hook; the elapsed time is logged, not asserted).
// The limiter's Admit runs once under 50 ms; an idempotency-record
// operation runs under its own longer bound and is retried once after it
// timed out.
func TestRedisOperationsAreBoundedByPurpose(t *testing.T) {
	r, err := edge.NewRedis(silentRedis(t), edge.RedisOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	ops := []struct {
		name     string
		op       func() error
		bound    time.Duration
		attempts int
	}{
		{"Admit", func() error { _, err := r.Admit(ctx, "k", 10, time.Second); return err }, edge.DefaultLimiterTimeout, 1},
		{"Claim", func() error { _, _, err := r.Claim(ctx, "k", []byte("v"), time.Second); return err }, edge.DefaultIdempotencyTimeout, 2},
		{"Get", func() error { _, _, err := r.Get(ctx, "k"); return err }, edge.DefaultIdempotencyTimeout, 2},
		{"Set", func() error { return r.Set(ctx, "k", []byte("v"), time.Second) }, edge.DefaultIdempotencyTimeout, 2},
		{"Delete", func() error { return r.Delete(ctx, "k") }, edge.DefaultIdempotencyTimeout, 2},
	}
	for _, tc := range ops {
		hook := &deadlineHook{}
		r.Client().AddHook(hook)
		retries := r.Retries()
		start := time.Now()
		err := tc.op()
		t.Logf("%s against a silent Redis failed after %v: %v", tc.name, time.Since(start), err)
		if !errors.Is(err, edge.ErrUnavailable) {
			t.Errorf("%s: err = %v, want ErrUnavailable", tc.name, err)
		}
		hook.mu.Lock()
		attempts := 0 // commands other than the connection handshake (HELLO)
		for _, n := range hook.names {
			if n != "hello" {
				attempts++
			}
		}
		if attempts != tc.attempts {
			t.Errorf("%s: %d attempts reached the client, want %d: %v", tc.name, attempts, tc.attempts, hook.names)
		}
		for _, left := range hook.left {
			// Negative is an attempt that began past its deadline on a
			// stalled machine (it fails at once); only a bound that is too
			// long is a fault.
			if left > tc.bound {
				t.Errorf("%s: an attempt ran with %v before its deadline, want at most %v", tc.name, left, tc.bound)
			}
		}
		hook.mu.Unlock()
		if got := r.Retries() - retries; got != int64(tc.attempts-1) {
			t.Errorf("%s: Retries grew by %d, want %d", tc.name, got, tc.attempts-1)
		}
		hook.disable()
	}
	if o := r.Client().(*redis.Client).Options(); o.ReadTimeout != edge.DefaultSocketTimeout || o.WriteTimeout != edge.DefaultSocketTimeout ||
		o.PoolSize != edge.DefaultPoolSize || o.DialTimeout != edge.DefaultDialTimeout || o.MaxRetries > 0 || o.DialerRetries != 1 {
		t.Errorf("client options: read %v write %v pool %d dial %v retries %d dial attempts %d",
			o.ReadTimeout, o.WriteTimeout, o.PoolSize, o.DialTimeout, o.MaxRetries, o.DialerRetries)
	}
}

// A refused connection (Redis down) is not retried: the outage is reported
// at once, and keyed writes get their 503 without waiting.
func TestRedisRefusedConnectionIsNotRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // nothing listens there now
	r, err := edge.NewRedis("redis://"+addr+"/0", edge.RedisOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	retries := r.Retries()
	if _, _, err := r.Claim(context.Background(), "k", []byte("v"), time.Second); !errors.Is(err, edge.ErrUnavailable) {
		t.Fatalf("Claim: %v, want ErrUnavailable", err)
	}
	if got := r.Retries() - retries; got != 0 {
		t.Fatalf("a refused connection was retried %d times", got)
	}
}

// The URL (or EVENTAPI_REDIS_CLUSTER) selects the client, and the settings
// reach it.
func TestRedisClientChosenByConfiguration(t *testing.T) {
	tests := []struct {
		url     string
		cluster bool
		want    string
	}{
		{"redis://127.0.0.1:6379/0", false, "*redis.Client"},
		{"redis+cluster://127.0.0.1:7101,127.0.0.1:7102", false, "*redis.ClusterClient"},
		{"rediss+cluster://u:p@127.0.0.1:7101", false, "*redis.ClusterClient"},
		{"redis://127.0.0.1:7101,127.0.0.1:7102", true, "*redis.ClusterClient"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			r, err := edge.NewRedis(tt.url, edge.RedisOptions{Client: config.Redis{Cluster: tt.cluster, PoolSize: 7, ReadTimeout: 3 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if got := fmt.Sprintf("%T", r.Client()); got != tt.want {
				t.Fatalf("client %s, want %s", got, tt.want)
			}
			if cc, ok := r.Client().(*redis.ClusterClient); ok {
				o := cc.Options()
				if len(o.Addrs) != strings.Count(tt.url, ",")+1 || o.PoolSize != 7 || o.ReadTimeout != 3*time.Second || o.MaxRetries > 0 {
					t.Fatalf("cluster options: addrs %v pool %d read %v retries %d", o.Addrs, o.PoolSize, o.ReadTimeout, o.MaxRetries)
				}
			}
		})
	}
}

// silentRedis returns the URL of a server that accepts connections, holds
// them open and never answers, until the test ends.
func silentRedis(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // hold it open, never reply
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
	})
	return "redis://" + ln.Addr().String() + "/0"
}

// TestQueuedAdmissionsFailOpen: admissions that queue behind a batch a
// silent Redis never answers all end with ErrUnavailable (the limiter then
// fails open), and every script call, a queued batch's included, runs under
// a deadline at most the limiter's timeout away (admit.go, pending; a
// queued batch whose deadline passed is not sent at all). Elapsed times are
// logged, not asserted.
func TestQueuedAdmissionsFailOpen(t *testing.T) {
	r, err := edge.NewRedis(silentRedis(t), edge.RedisOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hook := &deadlineHook{}
	r.Client().AddHook(hook)
	const n = 16
	errs := make(chan error, n)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.Admit(context.Background(), fmt.Sprintf("queued-%d", i), 10, time.Second)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	t.Logf("%d concurrent admissions against a silent Redis all ended after %v", n, time.Since(start))
	for err := range errs {
		if !errors.Is(err, edge.ErrUnavailable) {
			t.Errorf("err = %v, want ErrUnavailable", err)
		}
	}
	hook.mu.Lock()
	defer hook.mu.Unlock()
	scripts := 0
	for i, name := range hook.names {
		if name == "hello" {
			continue
		}
		scripts++
		// -1 is the hook's mark for no deadline; a deadline that passed
		// just before the call is a few µs below 0, and fine.
		if left := hook.left[i]; left == -1 || left > edge.DefaultLimiterTimeout {
			t.Errorf("a %s ran with %v before its deadline (-1ns: none), want at most %v", name, left, edge.DefaultLimiterTimeout)
		}
	}
	if scripts == 0 {
		t.Error("no script call reached the client")
	}
}
