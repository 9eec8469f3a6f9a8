package main

import (
	"context"
	"fmt"
	"time"

	"github.com/eventapi/eventapi/bench/catalogue"
)

// sample is one measured run against one server.
type sample struct {
	rps       float64
	p50, p99  time.Duration
	cpuPerReq time.Duration // the server process's CPU time per request
	dbPerReq  time.Duration // PostgreSQL's (the database's backends) per request
	// redisPerReq is redis-server's CPU per request (the Redis is shared:
	// other users of it add noise); genPerReq the load generator's own.
	redisPerReq, genPerReq time.Duration
	errors                 int64
	firstErr               string
}

// measure runs one load run and reads, around it, the CPU time of the
// server process and of the database's backends (only the server under
// load uses the database during a run).
func (b *bench) measure(ctx context.Context, proc *child, run func() (catalogue.Result, error)) (sample, error) {
	pids0, err := catalogue.BackendPIDs(ctx, b.monitor)
	if err != nil {
		return sample{}, err
	}
	db0 := catalogue.ReadCPUSet(pids0)
	cpu0, err := catalogue.ReadCPU(proc.pid())
	if err != nil {
		return sample{}, err
	}
	redis0, gen0 := b.redisCPU(), readOwnCPU()
	r, err := run()
	if err != nil {
		return sample{}, err
	}
	cpu1, err := catalogue.ReadCPU(proc.pid())
	if err != nil {
		return sample{}, err
	}
	redis1, gen1 := b.redisCPU(), readOwnCPU()
	pids1, err := catalogue.BackendPIDs(ctx, b.monitor)
	if err != nil {
		return sample{}, err
	}
	db1 := catalogue.ReadCPUSet(append(pids1, pids0...))
	s := sample{rps: r.RPS(), p50: r.Quantile(0.5), p99: r.Quantile(0.99), errors: r.Errors, firstErr: r.FirstErr}
	if r.Requests > 0 {
		s.cpuPerReq = (cpu1 - cpu0) / time.Duration(r.Requests)
		s.dbPerReq = db1.Since(db0) / time.Duration(r.Requests)
		s.redisPerReq = (redis1 - redis0) / time.Duration(r.Requests)
		s.genPerReq = (gen1 - gen0) / time.Duration(r.Requests)
	}
	return s, nil
}

// redisCPU is redis-server's CPU time so far (0 when it is not local).
func (b *bench) redisCPU() time.Duration {
	if b.redisPID == 0 {
		return 0
	}
	d, _ := catalogue.ReadCPU(b.redisPID)
	return d
}

func readOwnCPU() time.Duration {
	d, _ := catalogue.ReadCPU(0)
	return d
}

func (b *bench) closed(ctx context.Context, proc *child, t catalogue.Target, d time.Duration) (sample, error) {
	return b.measure(ctx, proc, func() (catalogue.Result, error) {
		return catalogue.Closed(ctx, b.client, t, b.o.concurrency, catalogue.Load{Requests: b.o.maxRequests, Duration: d})
	})
}

// endpoint is one benchmarked request with its targets.
type endpoint struct {
	name       string
	path       func(i int64) string
	minRatio   float64       // of the baseline's throughput
	maxP99Half time.Duration // at half the chain's maximum
}

func (b *bench) endpoints() []endpoint {
	all := []endpoint{
		{"detail", func(i int64) string { return detailPath(b.detailIDs[i%int64(len(b.detailIDs))]) }, 0.85, 5 * time.Millisecond},
		{"list", func(int64) string { return listPath }, 0.75, 10 * time.Millisecond},
	}
	var out []endpoint
	for _, ep := range all {
		if listed(b.o.endpoints, ep.name) {
			out = append(out, ep)
		}
	}
	return out
}

// maxPhase measures each endpoint's maximum throughput on every server,
// rotating which server goes first each round so drift on a noisy machine
// hits all alike. It returns the chain's median maximum per endpoint.
func (b *bench) maxPhase(ctx context.Context) (map[string]float64, error) {
	o := b.o
	fmt.Printf("\n== maximum throughput: closed loop, %d connections, %d rounds x %v per server, medians ==\n",
		o.concurrency, o.rounds, o.duration)
	tw := table("endpoint", "server", "req/s", "p50", "p99", "CPU/req: server", "PostgreSQL", "Redis", "load generator",
		"total", "errors")
	chainMax := map[string]float64{}
	var verdicts []string
	for _, ep := range b.endpoints() {
		targets := make([]catalogue.Target, len(b.procs))
		for i, p := range b.procs {
			targets[i] = b.server(p, b.small).Target(ep.name, ep.path)
			if _, err := b.closed(ctx, p, targets[i], o.warmup); err != nil {
				return nil, err
			}
		}
		samples := make([][]sample, len(b.procs))
		for r := range o.rounds {
			for k := range b.procs {
				i := (r + k) % len(b.procs)
				s, err := b.closed(ctx, b.procs[i], targets[i], o.duration)
				if err != nil {
					return nil, err
				}
				samples[i] = append(samples[i], s)
			}
		}
		sums := make([]summary, len(b.procs))
		for i, p := range b.procs {
			sums[i] = summarize(samples[i])
			tw.row(ep.name, p.name, sums[i].rpsCell(), ms(sums[i].p50), ms(sums[i].p99), us(sums[i].cpuPerReq),
				us(sums[i].dbPerReq), us(sums[i].redisPerReq), us(sums[i].genPerReq), us(sums[i].total()), sums[i].errCell())
		}
		base, bs := sums[len(sums)-1], samples[len(samples)-1]
		for i, p := range b.procs[:len(b.procs)-1] {
			var ratios []float64
			for r := range samples[i] {
				ratios = append(ratios, samples[i][r].rps/bs[r].rps)
			}
			ratio := sums[i].rps / base.rps
			verdicts = append(verdicts, fmt.Sprintf("%-6s %s/baseline throughput %.2f (per round %s), server CPU/req %.2fx, "+
				"PostgreSQL CPU/req %.2fx, all measured CPU/req %.2fx; target >= %.2f: %s", ep.name, p.name, ratio,
				floats(ratios), float64(sums[i].cpuPerReq)/float64(base.cpuPerReq),
				float64(sums[i].dbPerReq)/float64(base.dbPerReq), float64(sums[i].total())/float64(base.total()),
				ep.minRatio, verdict(ratio >= ep.minRatio)))
		}
		chainMax[ep.name] = sums[0].rps
	}
	tw.flush()
	for _, v := range verdicts {
		fmt.Println(v)
	}
	return chainMax, nil
}

// halfPhase offers each endpoint half the chain's maximum on a fixed
// schedule (open loop), the same offered rate to every server, and reports
// latency and the server's memory.
func (b *bench) halfPhase(ctx context.Context, chainMax map[string]float64) error {
	o := b.o
	fmt.Printf("\n== half the chain's maximum: open loop, up to %d in flight, %v per server ==\n", o.openWorkers, o.halfDuration)
	tw := table("endpoint", "server", "offered/s", "done/s", "p50", "p99", "peak VmRSS", "VmHWM", "server CPU/req",
		"PostgreSQL CPU/req", "errors")
	var verdicts []string
	for _, ep := range b.endpoints() {
		rate := chainMax[ep.name] / 2
		for _, proc := range b.procs {
			t := b.server(proc, b.small).Target(ep.name, ep.path)
			stop := make(chan struct{})
			memc := make(chan catalogue.Memory, 1)
			go func() { memc <- catalogue.SampleMemory(proc.pid(), 100*time.Millisecond, stop) }()
			s, err := b.measure(ctx, proc, func() (catalogue.Result, error) {
				return catalogue.Open(ctx, b.client, t, rate, o.openWorkers,
					catalogue.Load{Requests: o.maxRequests, Duration: o.halfDuration})
			})
			close(stop)
			mem := <-memc
			if err != nil {
				return err
			}
			tw.row(ep.name, proc.name, fmt.Sprintf("%.0f", rate), fmt.Sprintf("%.0f", s.rps), ms(s.p50), ms(s.p99),
				mib(mem.RSS), mib(mem.HWM), us(s.cpuPerReq), us(s.dbPerReq), errCell(s.errors, s.firstErr))
			if proc.role == "chain" {
				verdicts = append(verdicts, fmt.Sprintf("%-6s %s p99 %s at %.0f req/s; target <= %v: %s; "+
					"peak RSS %s; target <= 64 MiB: %s",
					ep.name, proc.name, ms(s.p99), rate, ep.maxP99Half, verdict(s.p99 <= ep.maxP99Half),
					mib(mem.RSS), verdict(mem.RSS <= 64<<20)))
			}
		}
	}
	tw.flush()
	for _, v := range verdicts {
		fmt.Println(v)
	}
	return nil
}

// searchPhase compares the list at the large organization with the list at
// the small one, for no search, a common term and a rare one, on every
// server (the baseline shows the database's share).
func (b *bench) searchPhase(ctx context.Context) error {
	o := b.o
	fmt.Printf("\n== list scaling: %d vs %d clients, closed loop, %d connections, %d rounds x %v, medians ==\n",
		b.big.Clients, b.small.Clients, o.concurrency, o.searchRounds, o.duration)
	tw := table("search", "server", "small req/s", "small p50", "small PG CPU/req", "large req/s", "large p50",
		"large PG CPU/req", "p50 large/small")
	var verdicts []string
	for _, term := range []string{"", catalogue.SearchCommon, catalogue.SearchRare} {
		path := listPath
		label := "(none)"
		if term != "" {
			path, label = searchPath(term), term
		}
		for _, proc := range b.procs {
			var sums [2]summary
			for i, org := range []catalogue.Org{b.small, b.big} {
				t := b.server(proc, org).Target("list "+label, func(int64) string { return path })
				if _, err := b.closed(ctx, proc, t, o.warmup); err != nil {
					return err
				}
				var ss []sample
				for range o.searchRounds {
					s, err := b.closed(ctx, proc, t, o.duration)
					if err != nil {
						return err
					}
					ss = append(ss, s)
				}
				sums[i] = summarize(ss)
			}
			ratio := float64(sums[1].p50) / float64(sums[0].p50)
			tw.row(label, proc.name, sums[0].rpsCell(), ms(sums[0].p50), us(sums[0].dbPerReq), sums[1].rpsCell(),
				ms(sums[1].p50), us(sums[1].dbPerReq), fmt.Sprintf("%.2f", ratio))
			if proc.role == "chain" && term != "" {
				verdicts = append(verdicts, fmt.Sprintf("search %-12s %s p50 at %d clients is %.2fx the one at %d; "+
					"throughput %.2fx; target <= 2x: %s", label, proc.name, b.big.Clients, ratio, b.small.Clients,
					sums[1].rps/sums[0].rps, verdict(ratio <= 2)))
			}
		}
	}
	tw.flush()
	for _, v := range verdicts {
		fmt.Println(v)
	}
	return nil
}
