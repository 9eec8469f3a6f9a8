package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// degradedCounters are the pods' counters of requests served degraded
// rather than failed: the answer a client got looks healthy, so only
// these say that rate limits were off or keyed writes refused.
var degradedCounters = []string{
	"eventapi_ratelimit_fail_open_total",
	"eventapi_idempotency_unavailable_total",
}

// metricsWatch scrapes every pod's /metrics each second and adds the
// counters' increases to the phase they happened in. A pod restarted by
// the rolling restart starts its counters again from 0; a value below
// the last one scraped counts from there.
type metricsWatch struct {
	pods   []*pod
	mu     sync.Mutex
	cur    string
	last   map[string]float64 // pod + counter → last value
	deltas map[string]map[string]float64
	stop   chan struct{}
	done   chan struct{}
}

func watchMetrics(ps []*pod) *metricsWatch {
	w := &metricsWatch{pods: ps, cur: "warm-up", last: map[string]float64{}, deltas: map[string]map[string]float64{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			w.scrape()
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

func (w *metricsWatch) scrape() {
	for _, p := range w.pods {
		values, err := counters(p.metricsURL())
		if err != nil {
			continue // a pod restarting: its next scrape counts what it missed
		}
		w.mu.Lock()
		for name, v := range values {
			k := p.name + " " + name
			d := v - w.last[k]
			if d < 0 {
				d = v
			}
			w.last[k] = v
			if d > 0 {
				if w.deltas[w.cur] == nil {
					w.deltas[w.cur] = map[string]float64{}
				}
				w.deltas[w.cur][name] += d
			}
		}
		w.mu.Unlock()
	}
}

// phase scrapes once more, so that what came before the change counts in
// the phase that ends, and starts counting for p.
func (w *metricsWatch) phase(p string) {
	w.scrape()
	w.mu.Lock()
	w.cur = p
	w.mu.Unlock()
}

// summary is one phase's line: each degraded counter's increase.
func (w *metricsWatch) summary(phase string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	parts := make([]string, len(degradedCounters))
	for i, name := range degradedCounters {
		parts[i] = fmt.Sprintf("%s +%.0f", strings.TrimSuffix(strings.TrimPrefix(name, "eventapi_"), "_total"), w.deltas[phase][name])
	}
	line := "  served degraded (pods' /metrics): " + strings.Join(parts, ", ")
	if !strings.Contains(phase, "redis") && w.deltas[phase]["eventapi_ratelimit_fail_open_total"] > 0 {
		// Redis was not touched in this phase: an admission fails open when
		// the limiter's answer takes over its bound (50 ms), which a
		// loaded machine causes too (the pods' "edge store unavailable:
		// context deadline exceeded" lines), not only an outage.
		line += " (Redis was up: fail-opens here are limiter calls over the 50 ms bound on a busy machine)"
	}
	return line
}

func (w *metricsWatch) halt() {
	close(w.stop)
	<-w.done
}

// counters reads the degraded counters, summed over their labels, from one
// Prometheus text exposition.
func counters(url string) (map[string]float64, error) {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, name := range degradedCounters {
		out[name] = sum(families[name])
	}
	return out, nil
}

func sum(f *dto.MetricFamily) float64 {
	var total float64
	if f == nil {
		return 0
	}
	for _, m := range f.GetMetric() {
		total += m.GetCounter().GetValue()
	}
	return total
}

// limitProbe checks that rate limits are applied: a new organization with
// a limit of probeLimit requests per window sends one more than that
// through the balancer, and the last one must be refused with 429. A new
// organization each time, so that one probe's window does not spill into
// the next.
type limitProbe struct {
	bin    string
	env    []string
	base   string
	probes int
}

const probeLimit = 5

func (lp *limitProbe) check() (string, bool) {
	lp.probes++
	var org struct {
		ID string `json:"id"`
	}
	must(cliRun(lp.bin, lp.env, &org, "orgs", "create", "--name", fmt.Sprintf("fleet limit probe %d %d", time.Now().UnixNano(), lp.probes),
		"--rate-limit", fmt.Sprint(probeLimit), "--output", "json"))
	var key struct {
		Key string `json:"key"`
	}
	must(cliRun(lp.bin, lp.env, &key, "keys", "create", "--org", org.ID, "--name", "probe", "--scopes", "all", "--output", "json"))
	status := map[int]int{}
	last := 0
	for i := 0; i <= probeLimit; i++ {
		req, _ := http.NewRequest("GET", lp.base+"/api/v2/health", nil)
		req.Header.Set("Authorization", "Bearer "+key.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			status[0]++
			last = 0
			continue
		}
		_ = resp.Body.Close()
		status[resp.StatusCode]++
		last = resp.StatusCode
	}
	verdict := "applied"
	if last != http.StatusTooManyRequests || status[http.StatusOK] != probeLimit {
		verdict = "NOT applied"
	}
	return fmt.Sprintf("  rate limits %s: %d requests of an organization limited to %d gave %v", verdict, probeLimit+1, probeLimit, status), verdict == "applied"
}
