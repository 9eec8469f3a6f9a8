package availability

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// app is the running service with the fixture, for one test or benchmark.
type app struct {
	base, key string
	fix       *Fixture
	queries   *lastQueries
	db        *bun.DB
}

func start(tb testing.TB) *app {
	tb.Helper()
	env := apitest.New(tb, apitest.WithConfig(func(c *config.Config) { c.V2RateLimit = 1_000_000_000 }))
	a, b := env.NewOrg("Planner"), env.NewOrg("Noise")
	fix, err := Seed(context.Background(), env.Svc.DB, a.ID, b.ID)
	if err != nil {
		tb.Fatal(err)
	}
	q := &lastQueries{}
	// The service's handlers hold env.Svc.DB itself: the hooked copy
	// replaces it in place so that they run the hook.
	*env.Svc.DB = *env.Svc.DB.WithQueryHook(q)
	return &app{base: env.Listen(tb), key: a.Key, fix: fix, queries: q, db: env.Svc.DB}
}

func (a *app) window() string {
	return "start=" + url.QueryEscape(Window[0].Format(time.RFC3339)) + "&end=" + url.QueryEscape(Window[1].Format(time.RFC3339))
}

func (a *app) onePath() string {
	return "/api/v2/equipment/" + a.fix.Busy.String() + "/availability?" + a.window()
}

func (a *app) batchPath() string {
	ids := make([]string, len(a.fix.Batch))
	for i, id := range a.fix.Batch {
		ids[i] = id.String()
	}
	return "/api/v2/availability?equipment_id=" + strings.Join(ids, ",") + "&" + a.window()
}

// client does not ask for gzip, so the figures stay comparable with the runs
// before responses were compressed.
var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}}

// get sends one GET over loopback and returns the status and body.
func (a *app) get(tb testing.TB, path string) (int, []byte) {
	req, err := http.NewRequest(http.MethodGet, a.base+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+a.key)
	res, err := client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return res.StatusCode, body
}

// TestTwoIndexedQueriesPerAnswer checks what the benchmark's figures rely
// on: each answer (the batch of 100 included) reads reservations with
// exactly two statements, the holds, whose plan uses the GiST index, and
// what is overdue before the window (since 2.19.0), whose plan uses the
// partial index of checked-out reservations, and the answers are right in
// size.
func TestTwoIndexedQueriesPerAnswer(t *testing.T) {
	a := start(t)
	for _, tc := range []struct {
		name, path string
		answers    int
	}{{"one equipment, 10,000 reservations", a.onePath(), 1}, {"100 equipment", a.batchPath(), Batch}} {
		t.Run(tc.name, func(t *testing.T) {
			a.queries.reset()
			status, body := a.get(t, tc.path)
			if status != 200 {
				t.Fatalf("%d %s", status, body)
			}
			var out struct{ Data json.RawMessage }
			if err := json.Unmarshal(body, &out); err != nil {
				t.Fatal(err)
			}
			var list []map[string]any
			if tc.answers == 1 {
				var one map[string]any
				_ = json.Unmarshal(out.Data, &one)
				list = append(list, one)
			} else {
				_ = json.Unmarshal(out.Data, &list)
			}
			if len(list) != tc.answers || list[0]["min_available"] == nil || len(list[0]["conflicting_reservation_ids"].([]any)) == 0 {
				t.Fatalf("%d answers, first %v", len(list), list[0])
			}
			qs := a.queries.all()
			if len(qs) != 2 {
				t.Fatalf("%d statements read equipment_reservations, want 2: %v", len(qs), qs)
			}
			for i, index := range []string{"equipment_reservations_holds_idx", "equipment_reservations_checked_out_idx"} {
				var plan []string
				if err := a.db.NewRaw("EXPLAIN "+qs[i]).Scan(context.Background(), &plan); err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(plan, func(l string) bool { return strings.Contains(l, index) }) {
					t.Errorf("plan of statement %d does not use %s:\n%s", i+1, index, strings.Join(plan, "\n"))
				}
			}
		})
	}
}

// BenchmarkAvailability measures both questions over loopback HTTP through
// the whole app and reports p50/p90 latency in milliseconds.
func BenchmarkAvailability(b *testing.B) {
	a := start(b)
	for _, bc := range []struct{ name, path string }{
		{"one_equipment_10k_reservations", a.onePath()},
		{"batch_100_equipment", a.batchPath()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for range 20 { // warm the connection, caches and plans
				a.get(b, bc.path)
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				if status, body := a.get(b, bc.path); status != 200 {
					b.Fatalf("%d %s", status, body)
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
			b.ReportMetric(ms(lat[len(lat)*9/10]), "p90-ms")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// lastQueries records the statements that read equipment_reservations.
type lastQueries struct {
	mu sync.Mutex
	qs []string
}

func (l *lastQueries) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (l *lastQueries) AfterQuery(_ context.Context, ev *bun.QueryEvent) {
	if strings.Contains(ev.Query, "equipment_reservations") {
		l.mu.Lock()
		l.qs = append(l.qs, ev.Query)
		l.mu.Unlock()
	}
}

func (l *lastQueries) reset() { l.mu.Lock(); l.qs = nil; l.mu.Unlock() }

func (l *lastQueries) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.qs)
}
