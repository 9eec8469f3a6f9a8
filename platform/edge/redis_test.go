package edge_test

import (
	"context"
	"errors"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

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
		if strings.Contains(k, "rl:") {
			ttl, _ := r.Client().PTTL(ctx, k).Result()
			if ttl <= 0 || ttl > 3*time.Second {
				t.Errorf("window key %s has ttl %v, want window + 1s", k, ttl)
			}
		}
	}
}

// deadlineHook records the time left before each command's deadline.
type deadlineHook struct {
	mu   sync.Mutex
	left []time.Duration
}

func (h *deadlineHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *deadlineHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h *deadlineHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		dl, ok := ctx.Deadline()
		h.mu.Lock()
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
// end with ErrUnavailable, because each carries the 50 ms deadline (checked
// structurally through a hook; the elapsed time is logged, not asserted).
func TestRedisOperationsAreBoundedByTheTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
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
	defer func() {
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
	}()
	r, err := edge.NewRedis("redis://"+ln.Addr().String()+"/0", edge.RedisOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hook := &deadlineHook{}
	r.Client().AddHook(hook)
	ctx := context.Background()
	ops := map[string]func() error{
		"Admit": func() error { _, err := r.Admit(ctx, "k", 10, time.Second); return err },
		"Claim": func() error { _, _, err := r.Claim(ctx, "k", []byte("v"), time.Second); return err },
		"Get":   func() error { _, _, err := r.Get(ctx, "k"); return err },
		"Set":   func() error { return r.Set(ctx, "k", []byte("v"), time.Second) },
	}
	for name, op := range ops {
		start := time.Now()
		err := op()
		t.Logf("%s against a silent Redis failed after %v: %v", name, time.Since(start), err)
		if !errors.Is(err, edge.ErrUnavailable) {
			t.Errorf("%s: err = %v, want ErrUnavailable", name, err)
		}
	}
	hook.mu.Lock()
	defer hook.mu.Unlock()
	if len(hook.left) == 0 {
		t.Fatal("no command reached the client")
	}
	for _, left := range hook.left {
		if left < 0 || left > edge.DefaultTimeout {
			t.Errorf("a command ran with %v before its deadline, want at most %v", left, edge.DefaultTimeout)
		}
	}
	if o := r.Client().(*redis.Client).Options(); o.ReadTimeout != edge.DefaultTimeout || o.WriteTimeout != edge.DefaultTimeout ||
		o.PoolTimeout != edge.DefaultTimeout || o.MaxRetries > 0 || o.DialerRetries != 1 {
		t.Errorf("client options: read %v write %v pool %v retries %d dial attempts %d",
			o.ReadTimeout, o.WriteTimeout, o.PoolTimeout, o.MaxRetries, o.DialerRetries)
	}
}
