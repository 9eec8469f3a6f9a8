package catalogue

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Target is what the load generator sends: GET URL(i) for the i-th request,
// with Header, or with Headers(i) when set (requests spread over many
// organizations). Every URL must be on a loopback address.
type Target struct {
	Name    string
	URL     func(i int64) string
	Header  http.Header
	Headers func(i int64) http.Header
}

func (t Target) header(i int64) http.Header {
	if t.Headers != nil {
		return t.Headers(i)
	}
	return t.Header
}

// Load bounds one run: it stops after Requests requests or Duration,
// whichever comes first.
type Load struct {
	Requests int64
	Duration time.Duration
}

// Result is one run's outcome. Latencies are sorted ascending.
type Result struct {
	Requests  int64
	Errors    int64
	FirstErr  string
	Elapsed   time.Duration
	Latencies []time.Duration
	// Offered is how many requests the open loop scheduled; Late how many
	// of them were sent more than LateAfter after their scheduled time (the
	// server or the generator fell behind); Saturated how many found every
	// worker busy with an earlier request, so they waited for the server:
	// the server did not keep up.
	Offered, Late, Saturated int64
}

// LateAfter is how far behind its schedule an open-loop request may be
// sent before it counts as late.
const LateAfter = 10 * time.Millisecond

// KeptUp reports whether the server kept up with an open-loop run: no
// errors, every scheduled request done, and at most 1% of them found every
// worker busy.
func (r Result) KeptUp() bool {
	return r.Errors == 0 && r.Requests == r.Offered && r.Saturated*100 <= r.Offered
}

// RPS is the completed requests per second.
func (r Result) RPS() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// Quantile returns the q-quantile latency (0 ≤ q ≤ 1), nearest rank.
func (r Result) Quantile(q float64) time.Duration { return Quantile(r.Latencies, q) }

// NewClient returns an HTTP client that keeps up to conns connections alive
// and dials only loopback addresses.
func NewClient(conns int) *http.Client {
	dialer := &net.Dialer{Timeout: 2 * time.Second}
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			Proxy: nil,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				if err := checkLoopback(addr); err != nil {
					return nil, err
				}
				return dialer.DialContext(ctx, network, addr)
			},
			MaxIdleConns:        conns,
			MaxIdleConnsPerHost: conns,
			MaxConnsPerHost:     conns,
			DisableCompression:  true,
			// Below the servers' read timeouts (30 s for the app), so the
			// client closes an idle connection before the server does.
			IdleConnTimeout: 10 * time.Second,
		},
	}
}

// CheckLoopbackURL refuses a URL whose host is not a loopback IP address.
func CheckLoopbackURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	return checkLoopback(u.Host)
}

func checkLoopback(hostport string) error {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("load target %q is not a loopback address", hostport)
	}
	return nil
}

// recorder collects one run's latencies and errors across workers.
type recorder struct {
	mu        sync.Mutex
	latencies []time.Duration
	errors    int64
	firstErr  string
}

func (r *recorder) add(d time.Duration, err error) {
	r.mu.Lock()
	if err != nil {
		r.errors++
		if r.firstErr == "" {
			r.firstErr = err.Error()
		}
	} else {
		r.latencies = append(r.latencies, d)
	}
	r.mu.Unlock()
}

func (r *recorder) result(elapsed time.Duration) Result {
	sortDurations(r.latencies)
	return Result{Requests: int64(len(r.latencies)) + r.errors, Errors: r.errors, FirstErr: r.firstErr,
		Elapsed: elapsed, Latencies: r.latencies}
}

// do sends one request and reads the whole body; a status other than 200 is
// an error.
func do(ctx context.Context, client *http.Client, t Target, i int64) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.URL(i), nil)
	if err != nil {
		return err
	}
	for k, v := range t.header(i) {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: status %d", t.Name, resp.StatusCode)
	}
	return nil
}

// Closed runs concurrency workers that each send a request as soon as their
// previous one completed: the server's maximum throughput at that
// concurrency. Latency is measured per request.
func Closed(ctx context.Context, client *http.Client, t Target, concurrency int, l Load) (Result, error) {
	if err := CheckLoopbackURL(t.URL(0)); err != nil {
		return Result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, l.Duration)
	defer cancel()
	var rec recorder
	rec.latencies = make([]time.Duration, 0, min(l.Requests, 1<<20))
	var issued atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range concurrency {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := issued.Add(1) - 1
				if i >= l.Requests {
					return
				}
				t0 := time.Now()
				err := do(ctx, client, t, i)
				if ctx.Err() != nil {
					return // cut off by the time bound: not a server error
				}
				rec.add(time.Since(t0), err)
			}
		})
	}
	wg.Wait()
	return rec.result(time.Since(start)), nil
}

// Open sends requests on a fixed schedule of rate per second, whatever the
// server's pace, through up to workers concurrent requests. Latency runs from
// each request's scheduled time, so a slow server cannot hide its queueing
// (no coordinated omission).
func Open(ctx context.Context, client *http.Client, t Target, rate float64, workers int, l Load) (Result, error) {
	if err := CheckLoopbackURL(t.URL(0)); err != nil {
		return Result{}, err
	}
	if rate <= 0 {
		return Result{}, fmt.Errorf("rate must be positive")
	}
	n := min(l.Requests, int64(rate*l.Duration.Seconds()))
	interval := time.Duration(float64(time.Second) / rate)
	ctx, cancel := context.WithTimeout(ctx, l.Duration+10*time.Second) // drain bound
	defer cancel()
	type job struct {
		i   int64
		due time.Time
	}
	jobs := make(chan job) // unbuffered: a send waits only when every worker is busy
	var rec recorder
	rec.latencies = make([]time.Duration, 0, n)
	var late, busy atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				if time.Since(j.due) > LateAfter {
					late.Add(1)
				}
				err := do(ctx, client, t, j.i)
				rec.add(time.Since(j.due), err)
				busy.Add(-1)
			}
		})
	}
	var saturated int64
	start := time.Now()
	for i := range n {
		due := start.Add(time.Duration(i) * interval)
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		// Saturated means every worker is still on an earlier request. A
		// worker that is free but not yet waiting (just started, or not
		// yet scheduled) is not the server's doing: the send waits for it,
		// and a long wait shows as late.
		if busy.Add(1) > int64(workers) {
			saturated++
		}
		select {
		case jobs <- job{i: i, due: due}:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	r := rec.result(time.Since(start))
	r.Offered, r.Late, r.Saturated = n, late.Load(), saturated
	return r, nil
}
