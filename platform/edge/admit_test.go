package edge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/eventapi/eventapi/platform/redistest"
)

// privateRedis starts a redis-server of the test's own (its script cache is
// flushed below, which a shared server's other users should not see).
func privateRedis(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no")
	if err := cmd.Start(); err != nil {
		t.Fatalf("redis-server is required for this test: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := fmt.Sprintf("redis://127.0.0.1:%d/0", port)
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port), MaxRetries: -1})
	defer c.Close()
	for range 100 {
		if c.Ping(context.Background()).Err() == nil {
			return url
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("redis-server on port %d did not answer", port)
	return ""
}

// pipelineHook records how many admission scripts each pipeline carried.
type pipelineHook struct {
	mu      sync.Mutex
	batches []int
}

func (h *pipelineHook) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (h *pipelineHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (h *pipelineHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		n := 0
		for _, c := range cmds {
			if c.Name() == "evalsha" || c.Name() == "eval" {
				n++
			}
		}
		h.mu.Lock()
		h.batches = append(h.batches, n)
		h.mu.Unlock()
		return next(ctx, cmds)
	}
}

func (h *pipelineHook) largest() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := 0
	for _, n := range h.batches {
		m = max(m, n)
	}
	return m
}

func testName() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// TestAdmissionsBatched: concurrent admissions of one process go out
// pipelined (a pipeline carries more than one script) and stay exact (a
// burst of 120 on a limit of 40 admits exactly 40, each Remaining given
// once); a batch sent right after the script cache was flushed (a Redis
// restart) falls back to EVAL, as a single Admit does.
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
			r, err := NewRedis(tc.url(t), RedisOptions{Prefix: prefix, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			t.Cleanup(func() {
				_ = redistest.DeleteKeys(ctx, r.Client(), prefix+"*")
				_ = r.Close()
			})
			hook := &pipelineHook{}
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
				t.Errorf("the largest pipeline carried %d admissions: concurrent admissions were not batched", m)
			}

			if err := r.Client().ScriptFlush(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			flushed := testName()
			batch := make([]*admission, 5)
			for i := range batch {
				batch[i] = &admission{ctx: ctx, key: r.Key(WindowKey(flushed)),
					args: []any{time.Minute.Microseconds(), 3}, done: make(chan struct{})}
			}
			r.admitBatch(ctx, batch)
			allowed := 0
			for i, a := range batch {
				if a.err != nil {
					t.Fatalf("admission %d after SCRIPT FLUSH: %v", i, a.err)
				}
				allowed += int(a.res[0])
			}
			if allowed != 3 {
				t.Errorf("after SCRIPT FLUSH a batch of 5 admitted %d, want 3", allowed)
			}
		})
	}
}
