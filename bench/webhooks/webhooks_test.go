// Package webhooks measures webhook delivery (docs/webhooks.md): a burst of
// changes committed at once is delivered by the in-process worker to a local
// receiver that answers 204 at once. It reports deliveries per second and
// the lag from each change's created_at to its receipt (p50, p99). Measured
// and reported, never asserted.
package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// burst is how many changes one iteration commits in one transaction.
const burst = 500

// sink counts receipts and their lag behind the change's timestamp.
type sink struct {
	mu   sync.Mutex
	lags []time.Duration
	done chan struct{}
	want int
}

func (s *sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m struct {
		Timestamp time.Time `json:"timestamp"`
	}
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &m)
	lag := time.Since(m.Timestamp)
	w.WriteHeader(http.StatusNoContent)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lags = append(s.lags, lag)
	if len(s.lags) == s.want {
		close(s.done)
	}
}

func BenchmarkDelivery(b *testing.B) {
	for _, tc := range []struct{ workers, perEndpoint int }{{4, 4}, {16, 16}} {
		b.Run(fmt.Sprintf("workers=%d,per_endpoint=%d", tc.workers, tc.perEndpoint), func(b *testing.B) {
			env := apitest.New(b, apitest.WithConfig(func(c *config.Config) {
				c.Webhook.AllowPrivate = true
				c.Webhook.Workers = tc.workers
				c.Webhook.EndpointConcurrency = tc.perEndpoint
			}))
			o := env.NewOrg("Bench")
			s := &sink{}
			srv := httptest.NewServer(s)
			b.Cleanup(srv.Close)
			if r := o.Post("/api/v2/webhook_endpoints", map[string]any{"url": srv.URL, "enabled_events": []string{"*"}}); r.Status != 201 {
				b.Fatal(r.Status, string(r.Body))
			}
			ctx := context.Background()
			var all []time.Duration
			var busy time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.mu.Lock()
				s.lags, s.want, s.done = nil, burst, make(chan struct{})
				s.mu.Unlock()
				start := time.Now()
				if _, err := env.Svc.DB.NewRaw(`INSERT INTO clients (organization_id, name)
					SELECT ?, 'bench ' || g FROM generate_series(1, ?) g`, o.ID, burst).Exec(ctx); err != nil {
					b.Fatal(err)
				}
				select {
				case <-s.done:
				case <-time.After(5 * time.Minute):
					b.Fatal("burst not delivered")
				}
				busy += time.Since(start)
				s.mu.Lock()
				all = append(all, s.lags...)
				s.mu.Unlock()
			}
			b.StopTimer()
			slices.Sort(all)
			b.ReportMetric(float64(b.N*burst)/busy.Seconds(), "deliveries/s")
			b.ReportMetric(float64(all[len(all)/2].Milliseconds()), "lag-p50-ms")
			b.ReportMetric(float64(all[len(all)*99/100].Milliseconds()), "lag-p99-ms")
		})
	}
}
