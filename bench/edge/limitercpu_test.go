package edge

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/eventapi/eventapi/bench/catalogue"
	edgestore "github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/redistest"
)

var (
	cpuRounds   = flag.Int("limitercpu.rounds", 3, "BenchmarkLimiterRedisCPU: measured rounds per variant (variants alternate)")
	cpuDuration = flag.Duration("limitercpu.duration", 5*time.Second, "BenchmarkLimiterRedisCPU: length of one round")
	cpuRate     = flag.Int("limitercpu.rate", 6000, "BenchmarkLimiterRedisCPU: admissions per second over all connections (0: as fast as they go)")
	cpuConns    = flag.Int("limitercpu.conns", 16, "BenchmarkLimiterRedisCPU: concurrent admitters")
	cpuKeys     = flag.Int("limitercpu.keys", 600, "BenchmarkLimiterRedisCPU: windows (organizations) the admissions are spread over")
	cpuLimit    = flag.Int("limitercpu.limit", 1000, "BenchmarkLimiterRedisCPU: limit of each window")
	cpuWindow   = flag.Duration("limitercpu.window", time.Minute, "BenchmarkLimiterRedisCPU: window length")
	cpuVariants = flag.String("limitercpu.variants", "pipelined,current", "BenchmarkLimiterRedisCPU: variants to alternate (pipelined: the script and batching before the batch script; current: platform/edge as built)")
)

// BenchmarkLimiterRedisCPU is the rate limiter's cost in Redis and in the
// server, without HTTP: -limitercpu.conns goroutines admit requests at
// -limitercpu.rate per second in total, each on a random one of
// -limitercpu.keys windows (limit -limitercpu.limit per -limitercpu.window),
// for -limitercpu.duration per round, the variants alternating on the same
// windows. The windows are filled first as that rate would have left them
// (entries spread over the last window), so that, as in a service that has
// been running, about one entry leaves the window per admission. Each round
// reads the CPU time of the redis-server listening at the configured
// address (EVENTAPI_TEST_REDIS_URL, /proc/<pid>/stat) and of this process,
// and INFO commandstats, and prints per admission: Redis CPU, the script
// calls and their usec_per_call, the commands the scripts ran, and this
// process's CPU (the load generator's share is the same in every variant).
// Any other client of that Redis adds to its CPU: point
// EVENTAPI_TEST_REDIS_URL at a redis-server of the run's own for clean
// figures. One call does the whole run (use -benchtime 1x), e.g.
//
//	flock /tmp/eventapi-bench.lock go test -run '^$' -bench LimiterRedisCPU -benchtime 1x ./bench/edge/
//
// The variant "pipelined" is the limiter before the batch script: one
// script call per admission (pipelinedScript), the concurrent ones
// pipelined; "current" is edgestore.Redis.Admit. docs/edge.md, "Rate
// limits", has the figures.
func BenchmarkLimiterRedisCPU(b *testing.B) {
	ctx := context.Background()
	url := pgtest.RedisURL()
	prefix := "bench-limitercpu:" + random() + ":"
	store, err := edgestore.NewRedis(url, edgestore.RedisOptions{Prefix: prefix, Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = redistest.DeleteKeys(ctx, store.Client(), prefix+"*")
		_ = store.Close()
	}()
	trips := &RoundTrips{}
	store.Client().AddHook(trips)
	pid, err := catalogue.URLListenerPID(url)
	if err != nil {
		b.Fatalf("the redis-server at %s must run on this machine: %v", url, err)
	}
	buckets := make([]string, *cpuKeys)
	for i := range buckets {
		buckets[i] = "v2:org:" + random()
	}
	if err := prefill(ctx, store, buckets); err != nil {
		b.Fatal(err)
	}
	old := &pipelined{client: store.Client()}
	admitters := map[string]func(ctx context.Context, bucket string) (bool, error){
		"current": func(ctx context.Context, bucket string) (bool, error) {
			d, err := store.Admit(ctx, bucket, *cpuLimit, *cpuWindow)
			return d.Allowed, err
		},
		"pipelined": func(ctx context.Context, bucket string) (bool, error) {
			return old.admit(ctx, store.Key(edgestore.WindowKey(bucket)), *cpuLimit, *cpuWindow)
		},
	}
	variants := strings.Split(*cpuVariants, ",")
	for _, v := range variants {
		if admitters[v] == nil {
			b.Fatalf("unknown variant %q", v)
		}
	}
	rounds := map[string][]round{}
	for r := range *cpuRounds {
		order := slices.Clone(variants)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, v := range order {
			m, err := measure(ctx, store.Client(), trips, pid, buckets, admitters[v])
			if err != nil {
				b.Fatal(err)
			}
			rounds[v] = append(rounds[v], m)
			fmt.Printf("round %d %-9s %s\n", r, v, m)
		}
	}
	for _, v := range variants {
		median := func(f func(round) float64) float64 {
			var xs []float64
			for _, m := range rounds[v] {
				xs = append(xs, f(m))
			}
			return catalogue.Median(xs)
		}
		redisCPU := median(func(m round) float64 { return m.redisCPU })
		fmt.Printf("median %-9s Redis CPU %.2f µs per admission, %.2f round trips per admission, evalsha usec_per_call %.2f, script time %.2f µs per admission\n",
			v, redisCPU, median(func(m round) float64 { return m.trips }),
			median(func(m round) float64 { return m.evalUsecPerCall }), median(func(m round) float64 { return m.evalUsec }))
		b.ReportMetric(redisCPU, "redis-µs/admission-"+v)
	}
}

// prefill leaves each window as -limitercpu.rate would have: entries spread
// evenly over the last window, at the rate's share of one window.
func prefill(ctx context.Context, store *edgestore.Redis, buckets []string) error {
	c := store.Client()
	now, err := c.Time(ctx).Result()
	if err != nil {
		return err
	}
	perWindow := int(float64(*cpuRate) / float64(len(buckets)) * cpuWindow.Seconds())
	perWindow = min(perWindow, *cpuLimit-1)
	if perWindow <= 0 {
		return nil
	}
	gap := *cpuWindow / time.Duration(perWindow)
	start := now.Add(-*cpuWindow)
	_, err = c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, bucket := range buckets {
			key := store.Key(edgestore.WindowKey(bucket))
			entries := make([]any, perWindow)
			for i := range entries {
				entries[i] = start.Add(time.Duration(i+1) * gap).UnixMicro()
			}
			p.RPush(ctx, key, entries...)
			p.PExpire(ctx, key, *cpuWindow+time.Second)
		}
		return nil
	})
	return err
}

// round is what one round measured, per admission.
type round struct {
	admissions, refused, failed int64
	rate                        float64 // admissions per second
	trips                       float64 // round trips (batches) per admission
	redisCPU, ownCPU            float64 // µs
	allocs, allocBytes          float64 // this process's heap allocations
	evalCalls, evalUsecPerCall  float64 // script calls per admission, and their usec_per_call
	evalUsec                    float64 // script time per admission (commandstats), µs
	commands                    string  // commands run inside the scripts, per admission
}

func (m round) String() string {
	return fmt.Sprintf("%6.0f/s %.2f round trips, Redis CPU %5.2f µs, evalsha %.2f calls usec_per_call %5.2f (%5.2f µs), bench process CPU %5.1f µs, %4.1f allocations (%4.0f B) per admission; in the scripts: %s; refused %d, failed %d",
		m.rate, m.trips, m.redisCPU, m.evalCalls, m.evalUsecPerCall, m.evalUsec, m.ownCPU, m.allocs, m.allocBytes, m.commands, m.refused, m.failed)
}

// measure runs one round of admissions.
func measure(ctx context.Context, c redis.UniversalClient, trips *RoundTrips, pid int, buckets []string,
	admit func(ctx context.Context, bucket string) (bool, error)) (round, error) {
	var m round
	statsBefore, err := commandStats(ctx, c)
	if err != nil {
		return m, err
	}
	redisBefore, err := catalogue.ReadCPU(pid)
	if err != nil {
		return m, err
	}
	ownBefore, _ := catalogue.ReadCPU(0)
	tripsBefore := trips.Load()
	var memBefore, memAfter runtime.MemStats
	runtime.ReadMemStats(&memBefore)
	var admitted, refused, failed atomic.Int64
	start := time.Now()
	end := start.Add(*cpuDuration)
	var wg sync.WaitGroup
	for g := range *cpuConns {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), uint64(start.UnixNano())))
			var interval time.Duration
			if *cpuRate > 0 {
				interval = time.Duration(*cpuConns) * time.Second / time.Duration(*cpuRate)
			}
			next := start.Add(interval * time.Duration(g) / time.Duration(*cpuConns))
			for {
				now := time.Now()
				if !now.Before(end) {
					return
				}
				if wait := next.Sub(now); wait > 0 {
					time.Sleep(wait)
				}
				next = next.Add(interval)
				ok, err := admit(ctx, buckets[rng.IntN(len(buckets))])
				switch {
				case err != nil:
					failed.Add(1)
				case ok:
					admitted.Add(1)
				default:
					refused.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	redisAfter, err := catalogue.ReadCPU(pid)
	if err != nil {
		return m, err
	}
	ownAfter, _ := catalogue.ReadCPU(0)
	tripsAfter := trips.Load()
	runtime.ReadMemStats(&memAfter)
	statsAfter, err := commandStats(ctx, c)
	if err != nil {
		return m, err
	}
	m.refused, m.failed = refused.Load(), failed.Load()
	m.admissions = admitted.Load() + m.refused + m.failed
	n := float64(m.admissions)
	m.rate = n / elapsed.Seconds()
	m.redisCPU = float64(redisAfter-redisBefore) / float64(time.Microsecond) / n
	m.ownCPU = float64(ownAfter-ownBefore) / float64(time.Microsecond) / n
	m.trips = float64(tripsAfter-tripsBefore) / n
	m.allocs = float64(memAfter.Mallocs-memBefore.Mallocs) / n
	m.allocBytes = float64(memAfter.TotalAlloc-memBefore.TotalAlloc) / n
	var inner []string
	for _, name := range slices.Sorted(maps.Keys(statsAfter)) {
		d := statsAfter[name].sub(statsBefore[name])
		switch name {
		case "evalsha", "eval":
			m.evalCalls += float64(d.calls) / n
			m.evalUsec += float64(d.usec) / n
		case "info", "time", "lrange", "lindex", "lpop", "rpush", "rpop", "ltrim", "lset", "pexpire", "pexpireat":
			if d.calls > 0 && name != "info" {
				inner = append(inner, fmt.Sprintf("%s %.2f", name, float64(d.calls)/n))
			}
		}
	}
	if m.evalCalls > 0 {
		m.evalUsecPerCall = m.evalUsec / m.evalCalls
	}
	m.commands = strings.Join(inner, ", ")
	return m, nil
}

// cmdStat is one command's line of INFO commandstats.
type cmdStat struct{ calls, usec int64 }

func (s cmdStat) sub(o cmdStat) cmdStat { return cmdStat{s.calls - o.calls, s.usec - o.usec} }

// commandStats reads INFO commandstats: "cmdstat_<name>:calls=N,usec=N,…".
func commandStats(ctx context.Context, c redis.UniversalClient) (map[string]cmdStat, error) {
	text, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		return nil, err
	}
	stats := map[string]cmdStat{}
	for _, line := range strings.Split(text, "\n") {
		name, fields, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		var s cmdStat
		for _, f := range strings.Split(fields, ",") {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "calls":
				s.calls, _ = strconv.ParseInt(v, 10, 64)
			case "usec":
				s.usec, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		stats[strings.TrimPrefix(name, "cmdstat_")] = s
	}
	return stats, nil
}

// pipelined is the limiter before the batch script, kept to be measured
// against: one call of pipelinedScript per admission, an admission that
// finds none in flight sent at once, the ones that arrive meanwhile
// pipelined together after it.
type pipelined struct {
	client  redis.UniversalClient
	mu      sync.Mutex
	busy    bool
	waiting []*oldAdmission
}

type oldAdmission struct {
	key  string
	args []any
	res  []int64
	err  error
	done chan struct{}
}

func (p *pipelined) admit(ctx context.Context, key string, limit int, window time.Duration) (bool, error) {
	a := &oldAdmission{key: key, args: []any{window.Microseconds(), limit}, done: make(chan struct{})}
	p.mu.Lock()
	if p.busy {
		p.waiting = append(p.waiting, a)
		p.mu.Unlock()
		<-a.done
	} else {
		p.busy = true
		p.mu.Unlock()
		p.batch(ctx, []*oldAdmission{a})
		if next := p.next(); next != nil {
			go func() {
				for next != nil {
					p.batch(ctx, next)
					next = p.next()
				}
			}()
		}
	}
	if a.err != nil {
		return false, a.err
	}
	if len(a.res) != 4 {
		return false, fmt.Errorf("unexpected script reply %v", a.res)
	}
	return a.res[0] == 1, nil
}

func (p *pipelined) next() []*oldAdmission {
	p.mu.Lock()
	defer p.mu.Unlock()
	next := p.waiting
	p.waiting = nil
	if len(next) == 0 {
		p.busy = false
		return nil
	}
	return next
}

func (p *pipelined) batch(ctx context.Context, batch []*oldAdmission) {
	defer func() {
		for _, a := range batch {
			close(a.done)
		}
	}()
	if len(batch) == 1 {
		a := batch[0]
		a.res, a.err = pipelinedScript.Run(ctx, p.client, []string{a.key}, a.args...).Int64Slice()
		return
	}
	cmds := make([]*redis.Cmd, len(batch))
	_, _ = p.client.Pipelined(ctx, func(pipe redis.Pipeliner) error {
		for i, a := range batch {
			cmds[i] = pipelinedScript.EvalSha(ctx, pipe, []string{a.key}, a.args...)
		}
		return nil
	})
	for i, a := range batch {
		if redis.HasErrorPrefix(cmds[i].Err(), "NOSCRIPT") {
			cmds[i] = pipelinedScript.Eval(ctx, p.client, []string{a.key}, a.args...)
		}
		a.res, a.err = cmds[i].Int64Slice()
	}
}

// pipelinedScript is the sliding-window script before the batch script
// (platform/edge/redis.go as of commit cac293f), verbatim: one window per
// call, TIME, LINDEX 0 and -1, RPUSH and PEXPIRE on every admission.
var pipelinedScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local edge = now - window
local head = redis.call('LINDEX', KEYS[1], 0)
if head and tonumber(head) <= edge then
  -- Entries 0..lo have left the window; hi is the first that has not (or
  -- the end). A few dozen calls however many left: popping a million one by
  -- one held Redis for 1.1 s, the LTRIM takes 0.3 ms.
  local lo, hi, step = 0, nil, 1
  repeat
    local v = redis.call('LINDEX', KEYS[1], lo + step)
    if v and tonumber(v) <= edge then lo, step = lo + step, step * 2 else hi, head = lo + step, v end
  until hi
  while hi - lo > 1 do
    local mid = math.floor((lo + hi) / 2)
    local v = redis.call('LINDEX', KEYS[1], mid)
    if v and tonumber(v) <= edge then lo = mid else hi, head = mid, v end
  end
  redis.call('LTRIM', KEYS[1], hi, -1)
end
local at = now
if head then
  local newest = tonumber(redis.call('LINDEX', KEYS[1], -1))
  if newest > now then at = newest end
end
local count = redis.call('RPUSH', KEYS[1], at)
local allowed = 1
if count > limit then
  redis.call('RPOP', KEYS[1])
  count = count - 1
  allowed = 0
else
  redis.call('PEXPIRE', KEYS[1], math.ceil((at - now + window) / 1000) + 1000)
end
local reset = now
if count > 0 then
  local frees = head or at
  local i = math.min(count - 1, math.max(0, count - limit))
  if i > 0 then frees = redis.call('LINDEX', KEYS[1], i) end
  reset = tonumber(frees) + window
end
return {allowed, count, reset, now}
`)
