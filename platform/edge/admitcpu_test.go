package edge

import (
	"context"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/pgtest"
)

// BenchmarkAdmitCPU: this process's CPU per admission (user + system, from
// getrusage) with 16 goroutines admitting over 600 windows at a real limit,
// the shape catbench's detail load gives the limiter. Measured, never
// asserted; docs/edge.md, "Rate limits".
func BenchmarkAdmitCPU(b *testing.B) {
	r := prefixedRedis(b, pgtest.RedisURL(), "edge-admitcpu:"+strconv.FormatInt(time.Now().UnixNano(), 36)+":")
	keys := make([]string, 600)
	for i := range keys {
		keys[i] = "bench:" + strconv.Itoa(i)
	}
	var n atomic.Int64
	before := cpuTime()
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			i := n.Add(1)
			if _, err := r.Admit(ctx, keys[i%int64(len(keys))], 1_000_000, time.Minute); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-before)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
