package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

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
	// mem is the server's peak resident set during the run (RSS, sampled
	// every 100 ms) and its VmHWM at the end (the process's peak so far).
	mem catalogue.Memory
}

// maxRSS is the resident-set target, judged at full load (the closed loop).
const maxRSS = 64 << 20

// measure runs one load run and reads, around it, the CPU time of the
// server process and of the database's backends (only the server under
// load uses the database during a run), and samples the server's memory
// during it.
func (b *bench) measure(ctx context.Context, proc *child, run func() (catalogue.Result, error)) (sample, error) {
	pids0, err := b.backends(ctx)
	if err != nil {
		return sample{}, err
	}
	db0 := catalogue.ReadCPUSet(pids0)
	cpu0, err := catalogue.ReadCPU(proc.pid())
	if err != nil {
		return sample{}, err
	}
	redis0, gen0 := b.redisCPU(), readOwnCPU()
	stop := make(chan struct{})
	memc := make(chan catalogue.Memory, 1)
	go func() { memc <- catalogue.SampleMemory(proc.pid(), 100*time.Millisecond, stop) }()
	r, err := run()
	close(stop)
	mem := <-memc
	if err != nil {
		return sample{}, err
	}
	cpu1, err := catalogue.ReadCPU(proc.pid())
	if err != nil {
		return sample{}, err
	}
	redis1, gen1 := b.redisCPU(), readOwnCPU()
	pids1, err := b.backends(ctx)
	if err != nil {
		return sample{}, err
	}
	db1 := catalogue.ReadCPUSet(append(pids1, pids0...))
	s := sample{rps: r.RPS(), p50: r.Quantile(0.5), p99: r.Quantile(0.99), errors: r.Errors, firstErr: r.FirstErr, mem: mem}
	if r.Requests > 0 {
		s.cpuPerReq = (cpu1 - cpu0) / time.Duration(r.Requests)
		s.dbPerReq = db1.Since(db0) / time.Duration(r.Requests)
		s.redisPerReq = (redis1 - redis0) / time.Duration(r.Requests)
		s.genPerReq = (gen1 - gen0) / time.Duration(r.Requests)
	}
	return s, nil
}

// backends lists the database's server processes (catalogue.ServerPIDs).
func (b *bench) backends(ctx context.Context) ([]int, error) {
	if b.postmasterPID == 0 {
		return nil, nil
	}
	return catalogue.ServerPIDs(ctx, b.monitor, b.postmasterPID, false)
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
	name string
	path func(i int64) string
	// org is the organization of the i-th request.
	org func(i int64) catalogue.Org
	// chainOnly endpoints are not served by the baselines.
	chainOnly bool
	minRatio  float64       // of the bare baseline's throughput (0: none)
	maxP99    time.Duration // at the fixed rate (0: none)
	maxP50    time.Duration // at the fixed rate (0: none)
}

func (b *bench) endpoints() []endpoint {
	nt := int64(len(b.tenants))
	tenant := func(i int64) catalogue.Org { return b.tenants[i%nt] }
	nm := int64(len(b.manifests))
	big := func(int64) catalogue.Org { return b.big }
	all := []endpoint{
		{name: "detail", org: tenant, minRatio: 0.85, maxP99: 5 * time.Millisecond, path: func(i int64) string {
			ids := b.tenants[i%nt].ClientIDs
			return detailPath(ids[(i/nt)%int64(len(ids))])
		}},
		{name: "list", org: tenant, minRatio: 0.90, maxP99: 10 * time.Millisecond,
			path: func(int64) string { return listPath }},
		{name: "manifest", org: func(i int64) catalogue.Org { return b.tenants[i%nm] }, chainOnly: true,
			maxP50: 8 * time.Millisecond, path: func(i int64) string {
				return "/api/v2/pick_lists/" + b.manifests[i%nm].String() + "?expand=items,equipment,category"
			}},
		{name: "deep", org: big, chainOnly: true,
			path: func(int64) string { return listPath + "&cursor=" + url.QueryEscape(b.deepCursor) }},
	}
	var out []endpoint
	for _, ep := range all {
		if listed(b.o.endpoints, ep.name) {
			out = append(out, ep)
		}
	}
	return out
}

// servers returns the processes that serve ep.
func (b *bench) servers(ep endpoint) []*child {
	if ep.chainOnly {
		return b.procs[:len(b.procs)-2]
	}
	return b.procs
}

// target is ep on proc, each request carrying its organization's key (or
// header).
func (b *bench) target(proc *child, ep endpoint) catalogue.Target {
	headers := map[uuid.UUID]http.Header{}
	for _, org := range append(append([]catalogue.Org{}, b.tenants...), b.small, b.big) {
		headers[org.ID] = header(proc, org)
	}
	base := "http://" + proc.addr
	return catalogue.Target{Name: proc.name + " " + ep.name,
		URL:     func(i int64) string { return base + ep.path(i) },
		Headers: func(i int64) http.Header { return headers[ep.org(i).ID] }}
}

// maxPhase measures each endpoint's maximum throughput on every server,
// rotating which server goes first each round so drift on a noisy machine
// hits all alike.
func (b *bench) maxPhase(ctx context.Context) error {
	o := b.o
	fmt.Printf("\n== maximum throughput: closed loop, %d connections, %d rounds x %v per server, medians ==\n",
		o.concurrency, o.rounds, o.duration)
	tw := table("endpoint", "server", "req/s", "p50", "p99", "CPU/req: server", "PostgreSQL", "Redis", "load generator",
		"total", "peak VmRSS", "errors")
	var verdicts []string
	for _, ep := range b.endpoints() {
		procs := b.servers(ep)
		targets := make([]catalogue.Target, len(procs))
		for i, p := range procs {
			targets[i] = b.target(p, ep)
			if _, err := b.closed(ctx, p, targets[i], o.warmup); err != nil {
				return err
			}
		}
		samples := make([][]sample, len(procs))
		for r := range o.rounds {
			for k := range procs {
				i := (r + k) % len(procs)
				s, err := b.closed(ctx, procs[i], targets[i], o.duration)
				if err != nil {
					return err
				}
				samples[i] = append(samples[i], s)
			}
		}
		sums := make([]summary, len(procs))
		for i, p := range procs {
			sums[i] = summarize(samples[i])
			tw.row(ep.name, p.name, sums[i].rpsCell(), ms(sums[i].p50), ms(sums[i].p99), us(sums[i].cpuPerReq),
				us(sums[i].dbPerReq), us(sums[i].redisPerReq), us(sums[i].genPerReq), us(sums[i].total()),
				mib(sums[i].peakRSS), sums[i].errCell())
			if p.role == "chain" {
				verdicts = append(verdicts, fmt.Sprintf("%-6s %s at full load: peak RSS %s (mapped from files %s, anonymous %s) over %d rounds; target <= %s: %s",
					ep.name, p.name, mib(sums[i].peakRSS), mib(sums[i].peakFile), mib(sums[i].peakRSS-sums[i].peakFile),
					len(samples[i]), mib(maxRSS), verdict(sums[i].peakRSS <= maxRSS)))
			}
		}
		if v, ok := requestLogCost(ep, procs, sums, samples); ok {
			verdicts = append(verdicts, v)
		}
		if ep.chainOnly {
			continue
		}
		for i, p := range procs[:len(procs)-2] {
			for _, ref := range []struct {
				k      int
				target float64
			}{{len(procs) - 2, ep.minRatio}, {len(procs) - 1, 1.3}} {
				base, bs := sums[ref.k], samples[ref.k]
				var ratios []float64
				for r := range samples[i] {
					ratios = append(ratios, samples[i][r].rps/bs[r].rps)
				}
				ratio := sums[i].rps / base.rps
				verdicts = append(verdicts, fmt.Sprintf("%-6s %s/%s throughput %.2f (per round %s), server CPU/req %.2fx, "+
					"PostgreSQL CPU/req %.2fx, all measured CPU/req %.2fx; target >= %.2f: %s", ep.name, p.name,
					procs[ref.k].name, ratio, floats(ratios), float64(sums[i].cpuPerReq)/float64(base.cpuPerReq),
					float64(sums[i].dbPerReq)/float64(base.dbPerReq), float64(sums[i].total())/float64(base.total()),
					ref.target, verdict(ratio >= ref.target)))
			}
		}
	}
	tw.flush()
	for _, v := range verdicts {
		fmt.Println(v)
	}
	return nil
}

// maxRequestLogCost is the request log's target: at most 3% of the chain's
// throughput (issue 12).
const maxRequestLogCost = 0.03

// requestLogCost compares the chain with the chain that logs no request
// (-request-log-off), when both ran: the throughput the log costs, per
// round too, and where its CPU goes, in the server (the pod) and in
// PostgreSQL (the database, shared by every pod).
func requestLogCost(ep endpoint, procs []*child, sums []summary, samples [][]sample) (string, bool) {
	on, off := -1, -1
	for i, p := range procs {
		switch p.name {
		case "chain":
			on = i
		case "chain-no-request-log":
			off = i
		}
	}
	if on < 0 || off < 0 {
		return "", false
	}
	var rounds []float64
	for r := range samples[on] {
		rounds = append(rounds, 100*(1-samples[on][r].rps/samples[off][r].rps))
	}
	cost := 1 - sums[on].rps/sums[off].rps
	return fmt.Sprintf("%-6s request log: throughput cost %.1f%% (per round %s%%), server %+.0fµs/req, PostgreSQL %+.0fµs/req; "+
		"target <= %.0f%%: %s", ep.name, 100*cost, floats(rounds),
		float64(sums[on].cpuPerReq-sums[off].cpuPerReq)/float64(time.Microsecond),
		float64(sums[on].dbPerReq-sums[off].dbPerReq)/float64(time.Microsecond),
		100*maxRequestLogCost, verdict(cost <= maxRequestLogCost)), true
}

// halfRate is the fixed open-loop rate of ep (-half-rates).
func (b *bench) halfRate(ep endpoint) (float64, error) {
	for _, kv := range strings.Split(b.o.halfRates, ",") {
		name, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if ok && name == ep.name {
			r, err := strconv.ParseFloat(v, 64)
			if err != nil || r <= 0 {
				return 0, fmt.Errorf("-half-rates: bad rate %q for %s", v, name)
			}
			return r, nil
		}
	}
	return 0, fmt.Errorf("-half-rates has no rate for %s", ep.name)
}

// halfPhase offers each endpoint a fixed, stated rate on a fixed schedule
// (open loop), the same to every server, and reports latency and the
// server's memory. A run that did not keep up with its schedule (errors,
// more than 1% of the requests sent over catalogue.LateAfter late, or
// requests left undone) is reported as such: its percentiles would measure
// the queue, not the server.
func (b *bench) halfPhase(ctx context.Context) error {
	o := b.o
	fmt.Printf("\n== fixed rate: open loop, up to %d in flight, %v per server (-half-rates %s) ==\n",
		o.openWorkers, o.halfDuration, o.halfRates)
	tw := table("endpoint", "server", "offered/s", "done/s", "late", "all busy", "p50", "p99", "peak VmRSS", "VmHWM",
		"server CPU/req", "PostgreSQL CPU/req", "Redis CPU/req", "errors")
	var verdicts []string
	for _, ep := range b.endpoints() {
		rate, err := b.halfRate(ep)
		if err != nil {
			return err
		}
		for _, proc := range b.servers(ep) {
			t := b.target(proc, ep)
			// Warm up as the other phases do. Run alone (-phases half), a
			// cold chain opens its database connections and looks up every
			// tenant's key during the measurement: 1-2% of the requests
			// then found all workers busy and the p99 was 20-26 ms.
			if _, err := b.closed(ctx, proc, t, o.warmup); err != nil {
				return err
			}
			var res catalogue.Result
			s, err := b.measure(ctx, proc, func() (catalogue.Result, error) {
				r, err := catalogue.Open(ctx, b.client, t, rate, o.openWorkers,
					catalogue.Load{Requests: o.maxRequests, Duration: o.halfDuration})
				res = r
				return r, err
			})
			if err != nil {
				return err
			}
			mem := s.mem
			p50, p99 := ms(s.p50), ms(s.p99)
			if !res.KeptUp() {
				p50, p99 = "did not keep up", "did not keep up"
			}
			late := fmt.Sprintf("%.1f%%", 100*float64(res.Late)/float64(max(res.Offered, 1)))
			busy := fmt.Sprintf("%.1f%%", 100*float64(res.Saturated)/float64(max(res.Offered, 1)))
			tw.row(ep.name, proc.name, fmt.Sprintf("%.0f", rate), fmt.Sprintf("%.0f", s.rps), late, busy, p50, p99,
				mib(mem.RSS), mib(mem.HWM), us(s.cpuPerReq), us(s.dbPerReq), us(s.redisPerReq), errCell(s.errors, s.firstErr))
			if proc.role != "chain" {
				continue
			}
			v := fmt.Sprintf("%-8s %s at %.0f req/s: ", ep.name, proc.name, rate)
			switch {
			case !res.KeptUp():
				v += fmt.Sprintf("DID NOT KEEP UP (%d of %d done, %s found all %d workers busy, %s sent late, %d errors): "+
					"latency not judged; ", res.Requests-res.Errors, res.Offered, busy, o.openWorkers, late, res.Errors)
			default:
				v += fmt.Sprintf("p50 %s, p99 %s", ms(s.p50), ms(s.p99))
				if ep.maxP50 > 0 {
					v += fmt.Sprintf("; p50 target <= %v: %s", ep.maxP50, verdict(s.p50 <= ep.maxP50))
				}
				if ep.maxP99 > 0 {
					v += fmt.Sprintf("; p99 target <= %v: %s", ep.maxP99, verdict(s.p99 <= ep.maxP99))
				}
				v += "; "
			}
			verdicts = append(verdicts, v+fmt.Sprintf("peak RSS %s (the target is judged at full load, above)", mib(mem.RSS)))
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
