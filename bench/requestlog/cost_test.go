// Package requestlog measures what the request log costs one request
// (issue 12, docs/observability.md): the request-log middleware and the
// buffered writer copying to a real PostgreSQL, against the same app
// without a sink, in one run. Each request runs through Fiber's handler on
// an in-memory request (no sockets), so the difference is the log's own
// work: building the record, buffering it, pgx encoding the COPY (this
// process's CPU) and PostgreSQL storing it (the writer's backend CPU, read
// from /proc). Measured and reported, never asserted. The requests are
// spread over -requestlog.orgs organizations (2,400, as catbench's are).
//
//	go test -run '^$' -bench . -benchtime 200000x -count 6 ./bench/requestlog/ [-requestlog.orgs 2400]
package requestlog

import (
	"context"
	"flag"
	"log/slog"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	reqlog "github.com/eventapi/eventapi/api/middleware/requestlog"
	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/bench/catalogue"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/tenancy"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// orgs is how many organizations the requests are spread over, in turn,
// each with a key of its own: the writer stores one segment per flush and
// organization (docs/observability.md, "Storage"), so a flush's records
// spread over 2,400 organizations, as catbench's traffic is, make segments
// of a few records each, where one organization makes them full.
var orgs = flag.Int("requestlog.orgs", 2400, "organizations the requests are spread over, in turn")

// BenchmarkPerRequest serves GET /api/v2/clients/{id} as an authenticated
// organization, with the request log on (a writer copying to PostgreSQL)
// and off. Metrics: cpu-µs/req is this process's CPU per request (handler,
// middleware, writer), pg-µs/req the writer's PostgreSQL backend's.
func BenchmarkPerRequest(b *testing.B) {
	ctx := context.Background()
	db, err := database.Open(ctx, pgtest.NewDatabase(b), database.Options{MaxOpenConns: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := requestlog.Maintain(ctx, db, requestlog.MaintainOptions{Retention: 72 * time.Hour, Ahead: 1}); err != nil {
		b.Fatal(err)
	}
	var backend int // the one connection's server process, which the writer uses
	if err := db.NewRaw("SELECT pg_backend_pid()").Scan(ctx, &backend); err != nil {
		b.Fatal(err)
	}
	for _, on := range []bool{true, false} {
		name := "log=off"
		if on {
			name = "log=on"
		}
		b.Run(name, func(b *testing.B) {
			var w *requestlog.Writer
			if on {
				w = requestlog.NewWriter(requestlog.WriterConfig{DB: db, Buffer: b.N + 1})
				defer func() { _ = w.Close(ctx) }()
			}
			handler := newApp(w, *orgs)
			var fctx fasthttp.RequestCtx
			path := "/api/v2/clients/" + uuid.NewString()
			pg0, _ := catalogue.ReadCPU(backend)
			cpu0, _ := catalogue.ReadCPU(0)
			b.ResetTimer()
			for range b.N {
				fctx.Request.Reset()
				fctx.Request.Header.SetMethod(fiber.MethodGet)
				fctx.Request.SetRequestURI(path)
				fctx.Request.Header.SetUserAgent("bench/1")
				handler(&fctx)
				if fctx.Response.StatusCode() != fiber.StatusOK {
					b.Fatalf("status %d", fctx.Response.StatusCode())
				}
			}
			if w != nil {
				if err := w.Flush(ctx); err != nil {
					b.Fatal(err)
				}
				if w.Dropped() != 0 || w.Written() != int64(b.N) {
					b.Fatalf("written %d, dropped %d of %d", w.Written(), w.Dropped(), b.N)
				}
			}
			b.StopTimer()
			pg1, _ := catalogue.ReadCPU(backend)
			cpu1, _ := catalogue.ReadCPU(0)
			b.ReportMetric(float64(cpu1-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/req")
			b.ReportMetric(float64(pg1-pg0)/float64(time.Microsecond)/float64(b.N), "pg-µs/req")
		})
	}
}

// newApp is the app's shape around the log: the middleware in front of a
// stand-in for auth (principals of orgs organizations in turn, as the real
// one sets them) and a handler that answers a small JSON body. A nil writer
// means no request log.
func newApp(w *requestlog.Writer, orgs int) fasthttp.RequestHandler {
	errHandler := rest.ErrorHandler(slog.New(slog.DiscardHandler))
	app := fiber.New(fiber.Config{ErrorHandler: errHandler, Immutable: true})
	cfg := reqlog.Config{Routes: route.New(app), ErrorHandler: errHandler, APIVersion: "v2"}
	if w != nil {
		cfg.Sink = w
	}
	principals := make([]*tenancy.Principal, max(orgs, 1))
	for i := range principals {
		principals[i] = &tenancy.Principal{OrganizationID: uuid.New(), KeyID: uuid.New(), KeyPrefix: "svc_live_abc"}
	}
	next := 0 // unguarded: the benchmark calls the handler from one goroutine
	v2 := app.Group("/api/v2", reqlog.New(cfg), func(c *fiber.Ctx) error {
		c.SetUserContext(tenancy.WithPrincipal(c.UserContext(), principals[next]))
		next = (next + 1) % len(principals)
		return c.Next()
	})
	v2.Get("/clients/:id", func(c *fiber.Ctx) error {
		return c.JSON(fiber.Map{"data": fiber.Map{"id": c.Params("id"), "name": "Client"}})
	})
	return app.Handler()
}
