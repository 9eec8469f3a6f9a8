package changes

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/bench/catalogue"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

var (
	httpRounds   = flag.Int("http.rounds", 6, "BenchmarkHTTPWrite: measured rounds per mode (modes alternate)")
	httpDuration = flag.Duration("http.duration", 5*time.Second, "BenchmarkHTTPWrite: length of one round")
	httpConns    = flag.Int("http.conns", 16, "BenchmarkHTTPWrite: concurrent connections")
	httpDDL      = flag.String("http.ddl", "", "BenchmarkHTTPWrite: SQL run on the database before measuring (to try a variant); @file reads it from a file")
	httpDDLB     = flag.String("http.ddl-b", "", "BenchmarkHTTPWrite: a second variant, on a database and server of its own, measured in the same rounds (with -http.ddl: A against B); @file reads it from a file")
	httpDBParams = flag.String("http.db-params", "", "BenchmarkHTTPWrite: extra pgx parameters for the server's database URL (e.g. default_query_exec_mode=cache_statement)")
)

// httpOrgs is how many organizations share the load, each at the real
// limit (1000 requests per minute), so the limiter works as in production.
const httpOrgs = 300

// BenchmarkHTTPWrite is the outbox's cost as a customer sees it: a real
// `eventapi serve` process (auth, the Redis limiter, the request log, the
// webhook worker) takes POST /api/v2/clients and a PATCH of the new client
// from -http.conns connections over 300 organizations, with the outbox on
// and off in alternating rounds of one run. It prints each round and the
// medians: writes per second and the CPU each write cost the server,
// PostgreSQL (this database's backends and the server's own background
// processes), Redis and the load generator, read from /proc, and the
// ratios off/on. One call does the whole run (use -benchtime 1x).
//
// With -http.ddl-b a second database and server get that variant (the
// first -http.ddl, or the schema as migrated), and each round measures
// both, each on and off back to back, in an order that rotates; it prints
// each variant's figures and both on/off ratios of each round.
func BenchmarkHTTPWrite(b *testing.B) {
	variants := []*httpVariant{newHTTPVariant(b, "", ddlFlag(b, *httpDDL))}
	if *httpDDLB != "" {
		variants[0].name = "A"
		variants = append(variants, newHTTPVariant(b, "B", ddlFlag(b, *httpDDLB)))
	}
	for _, v := range variants {
		v.w.run(b, time.Second) // warm-up: connections, prepared statements, key cache
	}
	for r := range *httpRounds {
		for i := range variants {
			v := variants[(i+r)%len(variants)]
			for _, on := range []bool{r%2 == 0, r%2 != 0} {
				toggleOutbox(b, v.monitor, on)
				before := v.m.read(b)
				n := v.w.run(b, *httpDuration)
				res := v.m.since(b, before, n)
				v.results[on] = append(v.results[on], res)
				fmt.Printf("round %d %-2s outbox=%-3s %s\n", r, v.name, onOff(on), res)
			}
		}
	}
	for _, v := range variants {
		toggleOutbox(b, v.monitor, true)
	}
	for _, v := range variants {
		label := ""
		if v.name != "" {
			label = v.name + ": "
		}
		on, off := median(v.results[true]), median(v.results[false])
		fmt.Printf("%smedian outbox=on  %s\n%smedian outbox=off %s\n", label, on, label, off)
		fmt.Printf("%soutbox cost: throughput on/off %.3f, CPU per write on/off %.3f (server %.3f, PostgreSQL %.3f)\n",
			label, on.rate/off.rate, on.total()/off.total(), on.server/off.server, on.pg/off.pg)
		paired := pairedRatios(v.results[true], v.results[false])
		fmt.Printf("%sthroughput on/off of each round's pair (the two ran back to back): median %.3f, %s\n",
			label, catalogue.Median(paired), formatFloats(paired, "%.3f"))
		fmt.Printf("%sPostgreSQL CPU per write on − off of each round's pair: median %.0f µs, %s\n",
			label, catalogue.Median(pairedPGDiffs(v.results[true], v.results[false])),
			formatFloats(pairedPGDiffs(v.results[true], v.results[false]), "%.0f"))
	}
	v := variants[len(variants)-1]
	on, off := median(v.results[true]), median(v.results[false])
	b.ReportMetric(on.rate/off.rate, "throughput-on/off")
	b.ReportMetric(on.total()/off.total(), "cpu-on/off")
	if len(variants) == 2 {
		a, bb := pairedRatios(variants[0].results[true], variants[0].results[false]),
			pairedRatios(variants[1].results[true], variants[1].results[false])
		b.ReportMetric(catalogue.Median(a), "A-paired-on/off")
		b.ReportMetric(catalogue.Median(bb), "B-paired-on/off")
	}
}

// httpVariant is one schema BenchmarkHTTPWrite measures: its database, the
// server on it, and what was measured.
type httpVariant struct {
	name    string
	monitor *pgxpool.Pool
	m       *meter
	w       *writer
	results map[bool][]round
}

func newHTTPVariant(b *testing.B, name, ddl string) *httpVariant {
	ctx := context.Background()
	dbURL := pgtest.NewDatabase(b)
	keys := seedKeys(b, dbURL, httpOrgs)
	serverURL := dbURL
	if *httpDBParams != "" {
		sep := "?"
		if strings.Contains(dbURL, "?") {
			sep = "&"
		}
		serverURL += sep + *httpDBParams
	}
	srv := apitest.StartProcess(b, "EVENTAPI_DATABASE_URL="+serverURL, "EVENTAPI_REDIS_URL="+pgtest.RedisURL())
	monitor, err := catalogue.OpenPool(ctx, dbURL, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(monitor.Close)
	if ddl != "" {
		if _, err := monitor.Exec(ctx, ddl); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
	}
	m := &meter{server: srv.Pid(), monitor: monitor}
	if m.redis, err = catalogue.URLListenerPID(pgtest.RedisURL()); err != nil {
		b.Fatalf("Redis must run on this machine: %v", err)
	}
	if m.postmaster, err = catalogue.URLListenerPID(pgtest.AdminURL()); err != nil {
		b.Fatalf("PostgreSQL must run on this machine: %v", err)
	}
	w := &writer{base: srv.Base(), keys: keys, client: catalogue.NewClient(*httpConns)}
	b.Cleanup(w.client.CloseIdleConnections)
	return &httpVariant{name: name, monitor: monitor, m: m, w: w, results: map[bool][]round{}}
}

// seedKeys makes n organizations with one live key each.
func seedKeys(b *testing.B, dbURL string, n int) []string {
	ctx := context.Background()
	db, err := database.Open(ctx, dbURL, database.Options{MaxOpenConns: 2})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	keys := make([]string, n)
	for i := range keys {
		o, err := tenancy.CreateOrganization(ctx, db, fmt.Sprintf("Bench %d", i), nil)
		if err != nil {
			b.Fatal(err)
		}
		k, err := tenancy.CreateKey(ctx, db, tenancy.NewKey{OrganizationID: o.ID, Name: "bench", Scopes: tenancy.AllScopes, Mode: apikey.Live})
		if err != nil {
			b.Fatal(err)
		}
		keys[i] = k.Secret
	}
	return keys
}

// toggleOutbox enables or disables the clients table's change trigger.
func toggleOutbox(b *testing.B, db *pgxpool.Pool, on bool) {
	if _, err := db.Exec(context.Background(), toggleSQL("clients", on)); err != nil {
		b.Fatal(err)
	}
}

// writer sends the benchmarked writes.
type writer struct {
	base   string
	keys   []string
	client *http.Client
	next   atomic.Int64
}

// run sends POST-then-PATCH pairs from the configured connections for d and
// returns how many requests completed. Any failed request fails b.
func (w *writer) run(b *testing.B, d time.Duration) int64 {
	var done atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	deadline := time.Now().Add(d)
	for range *httpConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				key := w.keys[w.next.Add(1)%int64(len(w.keys))]
				var created struct {
					Data struct{ ID string } `json:"data"`
				}
				if err := w.do(http.MethodPost, "/api/v2/clients", key, `{"name":"Bench client","email":"bench@example.com"}`, http.StatusCreated, &created); err != nil {
					once.Do(func() { b.Error(err) })
					return
				}
				if err := w.do(http.MethodPatch, "/api/v2/clients/"+created.Data.ID, key, `{"notes":"updated"}`, http.StatusOK, nil); err != nil {
					once.Do(func() { b.Error(err) })
					return
				}
				done.Add(2)
			}
		}()
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	return done.Load()
}

func (w *writer) do(method, path, key, body string, want int, out any) error {
	req, err := http.NewRequest(method, w.base+path, bytes.NewBufferString(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := w.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// meter reads the CPU time of every process a write runs through.
type meter struct {
	server, redis, postmaster int
	monitor                   *pgxpool.Pool
}

// reading is the CPU used so far by each measured process.
type reading struct {
	at                 time.Time
	server, redis, gen time.Duration
	pg                 catalogue.CPUSet
}

func (m *meter) read(b *testing.B) reading {
	pids, err := catalogue.ServerPIDs(context.Background(), m.monitor, m.postmaster, true)
	if err != nil {
		b.Fatal(err)
	}
	server, err := catalogue.ReadCPU(m.server)
	if err != nil {
		b.Fatal(err)
	}
	redis, _ := catalogue.ReadCPU(m.redis)
	gen, _ := catalogue.ReadCPU(0)
	return reading{at: time.Now(), server: server, redis: redis, gen: gen, pg: catalogue.ReadCPUSet(pids)}
}

// since turns the CPU used since before by n requests into a round.
func (m *meter) since(b *testing.B, before reading, n int64) round {
	after := m.read(b)
	for pid := range before.pg { // backends that have exited still count up to here
		if _, ok := after.pg[pid]; !ok {
			after.pg[pid] = before.pg[pid]
		}
	}
	per := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) / float64(n) }
	return round{rate: float64(n) / after.at.Sub(before.at).Seconds(),
		server: per(after.server - before.server), pg: per(after.pg.Since(before.pg)),
		redis: per(after.redis - before.redis), gen: per(after.gen - before.gen)}
}

// round is one measured round: requests per second and CPU microseconds
// per request.
type round struct{ rate, server, pg, redis, gen float64 }

func (r round) total() float64 { return r.server + r.pg + r.redis + r.gen }

func (r round) String() string {
	return fmt.Sprintf("%7.0f writes/s  CPU per write: server %5.0fµs  PostgreSQL %5.0fµs  Redis %4.0fµs  generator %4.0fµs  total %5.0fµs",
		r.rate, r.server, r.pg, r.redis, r.gen, r.total())
}

func median(rs []round) round {
	field := func(f func(round) float64) float64 {
		xs := make([]float64, len(rs))
		for i, r := range rs {
			xs[i] = f(r)
		}
		return catalogue.Median(xs)
	}
	return round{rate: field(func(r round) float64 { return r.rate }), server: field(func(r round) float64 { return r.server }),
		pg: field(func(r round) float64 { return r.pg }), redis: field(func(r round) float64 { return r.redis }),
		gen: field(func(r round) float64 { return r.gen })}
}

// pairedRatios is on/off throughput of each round: its two modes ran back
// to back, so a drift of the machine's load between rounds (other work on a
// shared machine) cancels out of each ratio.
func pairedRatios(on, off []round) []float64 {
	out := make([]float64, min(len(on), len(off)))
	for i := range out {
		out[i] = on[i].rate / off[i].rate
	}
	return out
}

// pairedPGDiffs is PostgreSQL's CPU per write on less off, of each round's
// back-to-back pair.
func pairedPGDiffs(on, off []round) []float64 {
	out := make([]float64, min(len(on), len(off)))
	for i := range out {
		out[i] = on[i].pg - off[i].pg
	}
	return out
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
