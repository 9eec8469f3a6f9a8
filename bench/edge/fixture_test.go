package edge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"
	"github.com/valyala/fasthttp"

	"github.com/eventapi/eventapi/api/middleware/idempotency"
	"github.com/eventapi/eventapi/api/middleware/ratelimit"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/database"
	edgestore "github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/tenancy"
)

// TestMain runs the package, then drops its database and Redis keys.
// go-redis's own log lines (one per failed dial in the Redis-down case) are
// silenced.
func TestMain(m *testing.M) {
	redis.SetLogger(quiet{})
	pgtest.Main(closing{m})
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

type closing struct{ m *testing.M }

func (c closing) Run() int {
	code := c.m.Run()
	if shared != nil {
		shared.close()
	}
	return code
}

// fixture is one database, one organization and one Redis client (under a
// random key prefix) shared by the tests and benchmarks of the package.
type fixture struct {
	db     *bun.DB
	redis  *edgestore.Redis
	prefix string
	trips  *RoundTrips
	// queries counts the statements run on db.
	queries *queryCounter
	org     uuid.UUID
}

// queryCounter is a bun hook counting statements.
type queryCounter struct{ n atomic.Int64 }

func (q *queryCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}
func (q *queryCounter) AfterQuery(context.Context, *bun.QueryEvent) { q.n.Add(1) }

var (
	sharedOnce sync.Once
	shared     *fixture
)

func setup(tb testing.TB) *fixture {
	tb.Helper()
	sharedOnce.Do(func() {
		ctx := context.Background()
		db, err := database.Open(ctx, pgtest.NewDatabase(tb), database.Options{MaxOpenConns: 20})
		if err != nil {
			tb.Fatalf("open database: %v", err)
		}
		org, err := tenancy.CreateOrganization(ctx, db, "bench edge", nil)
		if err != nil {
			tb.Fatalf("create organization: %v", err)
		}
		prefix := "bench-edge:" + random() + ":"
		// A 1 s bound instead of the production 50 ms: it changes nothing
		// on the measured path, and keeps a starved machine's slow replies
		// from turning into fail-opens or 503s mid-run.
		r, err := edgestore.NewRedis(pgtest.RedisURL(), edgestore.RedisOptions{Prefix: prefix, Timeout: time.Second})
		if err != nil {
			tb.Fatal(err)
		}
		if err := r.Ping(ctx); err != nil {
			tb.Fatalf("Redis is required at %s: %v", pgtest.RedisURL(), err)
		}
		f := &fixture{db: db, redis: r, prefix: prefix, trips: &RoundTrips{}, queries: &queryCounter{}, org: org.ID}
		r.Client().AddHook(f.trips)
		f.db = f.db.WithQueryHook(f.queries)
		shared = f
	})
	if shared == nil {
		tb.Fatal("fixture setup failed earlier in this run")
	}
	return shared
}

// close deletes the fixture's Redis keys and closes its pools.
func (f *fixture) close() {
	ctx := context.Background()
	c := f.redis.Client()
	iter := c.Scan(ctx, 0, f.prefix+"*", 1000).Iterator()
	var batch []string
	for iter.Next(ctx) {
		if batch = append(batch, iter.Val()); len(batch) == 1000 {
			c.Unlink(ctx, batch...)
			batch = batch[:0]
		}
	}
	if len(batch) > 0 {
		c.Unlink(ctx, batch...)
	}
	_ = f.redis.Close()
	_ = f.db.Close()
}

func random() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// stack selects the middleware under measurement.
type stack struct {
	limiter, idempotency bool
	limit                int
	window               time.Duration
	store                edgestore.Store // default: the fixture's Redis
}

// app builds a Fiber app: a fixed principal (authentication is not measured
// here; see bench/auth), then the selected middleware exactly as
// api/server wires it, then a handler answering 201 with a small body.
func (f *fixture) app(s stack) *fiber.App {
	log := slog.New(slog.DiscardHandler)
	store := s.store
	if store == nil {
		store = f.redis
	}
	app := fiber.New(fiber.Config{ErrorHandler: rest.ErrorHandler(log), Immutable: true})
	principal := &tenancy.Principal{OrganizationID: f.org, KeyID: uuid.New()}
	app.Use(func(c *fiber.Ctx) error {
		rest.EnsureRequestID(c)
		c.SetUserContext(tenancy.WithPrincipal(c.UserContext(), principal))
		return c.Next()
	})
	if s.limiter {
		bucket := "bench:" + random()
		app.Use(ratelimit.New(ratelimit.Config{Store: store, Window: s.window, Log: log,
			Bucket: func(*fiber.Ctx) (string, int) { return bucket, s.limit }}))
	}
	if s.idempotency {
		sealer, err := seal.New(make([]byte, seal.KeySize)) // one process: any key
		if err != nil {
			panic(err)
		}
		// Never closed: its background goroutines end with the benchmark's process.
		app.Use(idempotency.NewMiddleware(idempotency.Config{Store: store, DB: f.db, Log: log, Sealer: sealer}).Handle)
	}
	handler := func(c *fiber.Ctx) error {
		return c.Status(fiber.StatusCreated).JSON(fiber.Map{"data": fiber.Map{"id": "0b7c3c1e-5f55-4b43-9a4e-6d3f1c2a9e10", "name": "Bench"}})
	}
	app.Post("/api/v2/things", handler)
	app.Get("/api/v2/things", handler)
	return app
}

// client sends requests straight into the app's fasthttp handler, without a
// network hop, so what is measured is the middleware and its Redis and
// PostgreSQL calls.
type client struct {
	handler fasthttp.RequestHandler
	ctx     fasthttp.RequestCtx
}

func newClient(app *fiber.App) *client { return &client{handler: app.Handler()} }

// do sends one request and returns its status.
func (c *client) do(method, key string, body []byte) int {
	c.ctx.Request.Reset()
	c.ctx.Response.Reset()
	c.ctx.Request.Header.SetMethod(method)
	c.ctx.Request.SetRequestURI("/api/v2/things")
	if body != nil {
		c.ctx.Request.Header.SetContentType("application/json")
		c.ctx.Request.SetBody(body)
	}
	if key != "" {
		c.ctx.Request.Header.Set(idempotency.Header, key)
	}
	c.handler(&c.ctx)
	return c.ctx.Response.StatusCode()
}

// timings records per-request durations for percentiles.
type timings []time.Duration

func (t timings) report(b *testing.B) {
	if len(t) == 0 {
		return
	}
	s := append(timings(nil), t...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	b.ReportMetric(float64(s[len(s)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(s[len(s)*99/100].Nanoseconds())/1e3, "p99-µs")
}

// reportTrips reports Redis round trips per request.
func reportTrips(b *testing.B, trips int64) {
	b.ReportMetric(float64(trips)/float64(b.N), "redis-rt/op")
}

var body = []byte(`{"name":"Bench Productions","email":"ops@bench.example"}`)

func freshKey(i int) string { return fmt.Sprintf("bench-%s-%d", random(), i) }
