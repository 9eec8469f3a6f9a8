package edge_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/edge"
)

// Unset read and write timeouts are at least every per-purpose bound, and
// so is the pool wait: go-redis ends a read or write at the earlier of the
// call's deadline and the socket timeout, so a 1 s socket timeout cut a 4 s
// EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT to 1 s. Timeouts set are kept
// (platform/config refuses them below a per-purpose bound).
func TestSocketTimeoutsCoverPerPurposeBounds(t *testing.T) {
	for _, tc := range []struct {
		name        string
		url         string
		opt         edge.RedisOptions
		read, write time.Duration
	}{
		{name: "defaults", url: "redis://127.0.0.1:6379/0",
			read: edge.DefaultSocketTimeout, write: edge.DefaultSocketTimeout},
		{name: "long idempotency bound", url: "redis://127.0.0.1:6379/0",
			opt:  edge.RedisOptions{Client: config.Redis{IdempotencyTimeout: 4 * time.Second}},
			read: 4 * time.Second, write: 4 * time.Second},
		{name: "long idempotency bound, cluster", url: "redis+cluster://127.0.0.1:7101,127.0.0.1:7102",
			opt:  edge.RedisOptions{Client: config.Redis{IdempotencyTimeout: 4 * time.Second}},
			read: 4 * time.Second, write: 4 * time.Second},
		{name: "long limiter bound", url: "redis://127.0.0.1:6379/0",
			opt:  edge.RedisOptions{Client: config.Redis{LimiterTimeout: time.Second, IdempotencyTimeout: 200 * time.Millisecond}},
			read: time.Second, write: time.Second},
		{name: "patient test timeout", url: "redis://127.0.0.1:6379/0",
			opt:  edge.RedisOptions{Timeout: 5 * time.Second},
			read: 5 * time.Second, write: 5 * time.Second},
		{name: "set explicitly", url: "redis://127.0.0.1:6379/0",
			opt:  edge.RedisOptions{Client: config.Redis{IdempotencyTimeout: 2 * time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 6 * time.Second}},
			read: 3 * time.Second, write: 6 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := edge.NewRedis(tc.url, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var read, write, pool time.Duration
			switch c := r.Client().(type) {
			case *redis.Client:
				o := c.Options()
				read, write, pool = o.ReadTimeout, o.WriteTimeout, o.PoolTimeout
			case *redis.ClusterClient:
				o := c.Options()
				read, write, pool = o.ReadTimeout, o.WriteTimeout, o.PoolTimeout
			}
			if read != tc.read || write != tc.write || pool != tc.read {
				t.Fatalf("read %v, write %v, pool wait %v; want %v, %v, %v", read, write, pool, tc.read, tc.write, tc.read)
			}
		})
	}
}

// Against a Redis that never answers, an idempotency-record call with a
// bound longer than the default socket timeout waits out that bound on each
// of its two attempts. Before the fix the 1 s socket timeout ended each
// attempt first: 2.0 s here instead of at least 2.4 s. A lower bound on the
// elapsed time holds on any machine: no deadline fires early.
func TestLongIdempotencyBoundIsNotCutBySocketTimeout(t *testing.T) {
	const bound = 1200 * time.Millisecond
	r, err := edge.NewRedis(silentRedis(t), edge.RedisOptions{Client: config.Redis{IdempotencyTimeout: bound}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	start := time.Now()
	_, _, err = r.Get(context.Background(), "k")
	elapsed := time.Since(start)
	if !errors.Is(err, edge.ErrUnavailable) {
		t.Fatalf("Get: %v, want ErrUnavailable", err)
	}
	if elapsed < 2*bound {
		t.Fatalf("Get against a silent Redis gave up after %v, want two attempts of %v", elapsed, bound)
	}
	t.Logf("Get against a silent Redis gave up after %v (two attempts of %v)", elapsed, bound)
}
