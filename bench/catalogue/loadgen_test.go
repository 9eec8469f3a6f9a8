package catalogue

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

func TestQuantile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	for _, c := range []struct {
		name   string
		sorted []time.Duration
		q      float64
		want   time.Duration
	}{
		{"empty", nil, 0.5, 0},
		{"one", ms(7), 0.99, 7 * time.Millisecond},
		{"median odd", ms(1, 2, 3), 0.5, 2 * time.Millisecond},
		{"median even is lower middle", ms(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
		{"p99 of 100", ms(func() []int {
			x := make([]int, 100)
			for i := range x {
				x[i] = i + 1
			}
			return x
		}()...), 0.99, 99 * time.Millisecond},
		{"max", ms(1, 2, 3), 1, 3 * time.Millisecond},
		{"min", ms(1, 2, 3), 0, 1 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Quantile(c.sorted, c.q); got != c.want {
				t.Fatalf("Quantile(%v) = %v, want %v", c.q, got, c.want)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := Median(c.xs); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}

// countingServer answers 200, or 500 for every request whose fail query
// parameter is set, and counts what it served.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.URL.Query().Get("fail") != "" {
			w.WriteHeader(http.StatusInternalServerError)
		}
		_, _ = w.Write([]byte(`{"data":{}}`))
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func TestClosedLoopIsBoundedByCount(t *testing.T) {
	s, served := countingServer(t)
	target := Target{Name: "test", URL: func(i int64) string {
		if i%10 == 9 {
			return s.URL + "/?fail=1&i=" + strconv.FormatInt(i, 10)
		}
		return s.URL + "/"
	}}
	r, err := Closed(context.Background(), NewClient(4), target, 4, Load{Requests: 200, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 200 || served.Load() != 200 {
		t.Fatalf("sent %d, served %d, want 200 each", r.Requests, served.Load())
	}
	if r.Errors != 20 || len(r.Latencies) != 180 || r.FirstErr == "" {
		t.Fatalf("errors %d (%q), latencies %d; want 20 errors and 180 latencies", r.Errors, r.FirstErr, len(r.Latencies))
	}
	if r.RPS() <= 0 || r.Quantile(0.5) <= 0 {
		t.Fatalf("rps %v, p50 %v", r.RPS(), r.Quantile(0.5))
	}
}

func TestOpenLoopSendsTheSchedule(t *testing.T) {
	s, served := countingServer(t)
	target := Target{Name: "test", URL: func(int64) string { return s.URL + "/" }}
	// 1000/s for 50 ms is 50 requests; the count bound caps it at 30.
	r, err := Open(context.Background(), NewClient(8), target, 1000, 8, Load{Requests: 30, Duration: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 30 || served.Load() != 30 || r.Errors != 0 {
		t.Fatalf("sent %d, served %d, errors %d (%s); want 30, 30, 0", r.Requests, served.Load(), r.Errors, r.FirstErr)
	}
	if r.Offered != 30 {
		t.Fatalf("offered %d, want 30", r.Offered)
	}
}

// TestOpenLoopReportsFallingBehind has one worker and a server that holds
// the first request for 3 × LateAfter (a deliberately slow server): the
// requests scheduled meanwhile leave late, and the run did not keep up.
func TestOpenLoopReportsFallingBehind(t *testing.T) {
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			<-time.After(3 * LateAfter)
		}
		if got := r.Header.Get("X-I"); got != r.URL.Query().Get("i") {
			w.WriteHeader(http.StatusBadRequest) // per-request headers must follow the request
		}
	}))
	t.Cleanup(s.Close)
	target := Target{Name: "slow",
		URL:     func(i int64) string { return s.URL + "/?i=" + strconv.FormatInt(i, 10) },
		Headers: func(i int64) http.Header { return http.Header{"X-I": {strconv.FormatInt(i, 10)}} }}
	r, err := Open(context.Background(), NewClient(1), target, 1000, 1, Load{Requests: 10, Duration: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Errors != 0 || r.Requests != 10 {
		t.Fatalf("requests %d, errors %d (%s)", r.Requests, r.Errors, r.FirstErr)
	}
	if r.Late < 1 || r.Saturated < 1 || r.KeptUp() {
		t.Fatalf("late %d, saturated %d of %d, kept up %v: want late and saturated requests, not kept up",
			r.Late, r.Saturated, r.Offered, r.KeptUp())
	}
}

func TestOnlyLoopbackTargets(t *testing.T) {
	for _, c := range []struct {
		url string
		ok  bool
	}{
		{"http://127.0.0.1:8080/x", true},
		{"http://127.3.4.5:1/", true},
		{"http://[::1]:8080/", true},
		{"http://10.0.0.1:8080/", false},
		{"http://192.168.1.2/", false},
		{"http://example.com/", false},
		{"http://localhost:8080/", false}, // names are not resolved: IPs only
	} {
		err := CheckLoopbackURL(c.url)
		if (err == nil) != c.ok {
			t.Errorf("CheckLoopbackURL(%s) = %v, want ok=%v", c.url, err, c.ok)
		}
		if !c.ok {
			target := Target{Name: "t", URL: func(int64) string { return c.url }}
			if _, err := Closed(context.Background(), NewClient(1), target, 1, Load{Requests: 1, Duration: time.Second}); err == nil {
				t.Errorf("Closed sent load to %s", c.url)
			}
		}
	}
}

func TestReadProcess(t *testing.T) {
	m, err := ReadMemory(0)
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS <= 0 || m.HWM < m.RSS || m.File <= 0 || m.File > m.RSS {
		t.Fatalf("memory %+v: want 0 < RSS <= HWM and 0 < File <= RSS", m)
	}
	if _, err := ReadCPU(0); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	close(stop)
	if peak := SampleMemory(0, time.Millisecond, stop); peak.RSS <= 0 {
		t.Fatalf("SampleMemory: %+v", peak)
	}
}

// TestOpenLoopCountsOnlyBusyWorkers: at a rate an instant server easily
// serves, no request finds every worker busy, the first ones included
// (which once counted as saturated when the workers had not yet started to
// wait for work: a run of 80 requests then "did not keep up").
func TestOpenLoopCountsOnlyBusyWorkers(t *testing.T) {
	s, _ := countingServer(t)
	target := Target{Name: "instant", URL: func(int64) string { return s.URL + "/" }}
	for range 5 {
		r, err := Open(context.Background(), NewClient(64), target, 200, 64, Load{Requests: 10, Duration: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if r.Saturated != 0 || !r.KeptUp() {
			t.Fatalf("%d of %d requests found every worker busy (kept up %v)", r.Saturated, r.Offered, r.KeptUp())
		}
	}
}

func TestParseMemory(t *testing.T) {
	cases := []struct {
		name    string
		status  string
		want    Memory
		wantErr bool
	}{
		{name: "all three", status: "Name:\tx\nVmHWM:\t  300 kB\nVmRSS:\t  200 kB\nRssAnon:\t  150 kB\nRssFile:\t   50 kB\n",
			want: Memory{RSS: 200 << 10, HWM: 300 << 10, File: 50 << 10}},
		{name: "no file line", status: "VmRSS:\t200 kB\nVmHWM:\t200 kB\n", want: Memory{RSS: 200 << 10, HWM: 200 << 10}},
		{name: "no VmRSS", status: "VmHWM:\t200 kB\n", wantErr: true},
		{name: "not kB", status: "VmRSS:\t200 MB\n", wantErr: true},
		{name: "not a number", status: "VmRSS:\tmany kB\n", wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseMemory("status", []byte(c.status))
			if (err != nil) != c.wantErr || got != c.want {
				t.Fatalf("parseMemory = %+v, %v; want %+v, error %v", got, err, c.want, c.wantErr)
			}
		})
	}
}
