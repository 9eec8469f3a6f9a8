package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/uptrace/bun"
	"github.com/uptrace/opentelemetry-go-extra/otelsql"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"

	reqlog "github.com/eventapi/eventapi/api/middleware/requestlog"
	"github.com/eventapi/eventapi/api/rest/bulkhead"
	"github.com/eventapi/eventapi/api/webhooks/delivery"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/tenancy"
)

// Service is a wired app with the pools it owns.
type Service struct {
	App  *fiber.App
	DB   *bun.DB
	Edge edge.Store
	Auth *tenancy.Authenticator
	Log  *slog.Logger
	// Drain is the shutdown state that RunWith starts on SIGTERM.
	Drain *Drain
	// FailOpens counts the requests the rate limiters admitted without a
	// decision because the edge store failed (the OpenTelemetry counter
	// eventapi.ratelimit.fail_open reports the same events).
	FailOpens atomic.Int64
	// RequestLog buffers the request log; Close flushes it.
	RequestLog *requestlog.Writer
	// LargeReads bounds the large responses the process builds at once
	// (EVENTAPI_LARGE_READS).
	LargeReads *bulkhead.Slots
	// Writes bounds the writes the process runs at once, and each
	// organization's share of them (bulkhead.NewWrites).
	Writes *bulkhead.Slots
	// stopApp ends the app's background work (build).
	stopApp func()
	// stopMaintenance ends the request log's partition maintenance loop.
	stopMaintenance context.CancelFunc
	maintenanceDone chan struct{}
	// stopRetention ends the hourly retention pass (hourlyRetention).
	stopRetention context.CancelFunc
	retentionDone chan struct{}
	// probe is a pool of its own for /readyz, so that a pod whose main pool
	// is saturated still reports whether PostgreSQL answers.
	probe *bun.DB
	// webhooks sends webhook deliveries once StartWebhooks ran (nil when
	// EVENTAPI_WEBHOOK_WORKERS=0).
	webhooks      *delivery.Worker
	startWebhooks func()
	// unmeterEdge and unmeterDatabase stop the edge store's and
	// PostgreSQL's health checks and unregister their gauges (meterUp);
	// nil when they were not started.
	unmeterEdge, unmeterDatabase func()
}

// Options adjusts Open for tests.
type Options struct {
	// Tracing enables the SQL and Redis span hooks.
	Tracing bool
	// Routes registers extra protected v2 routes.
	Routes func(v2 fiber.Router)
	// RedisPrefix namespaces the Redis keys (tests isolate themselves with it).
	RedisPrefix string
	// RedisTimeout, when set, replaces both per-purpose bounds of the edge
	// store (by default 50 ms for the limiter and 500 ms for idempotency
	// records: edge.DefaultLimiterTimeout, edge.DefaultIdempotencyTimeout);
	// tests on a loaded machine raise it.
	RedisTimeout time.Duration
	// Metrics reports the PostgreSQL and Redis pools, and whether Redis
	// answers (eventapi_edge_store_up), through the global meter provider
	// (serve sets it; tests that read /metrics too).
	Metrics bool
	// RequestLog tunes the request-log writer (DB, Buffer and Log are set
	// by Open: Buffer from cfg.RequestLogBuffer unless set here).
	RequestLog requestlog.WriterConfig
	// MaintainEvery is the period of the request log's partition
	// maintenance (default 1h).
	MaintainEvery time.Duration
	// RequestLogOff logs no request (bench/catalogue measures the request
	// log's cost against it); serve never sets it.
	RequestLogOff bool
	// JSONEncoder renders response bodies (nil: rest.Encode; the tests
	// compare it with encoding/json on every response).
	JSONEncoder func(any) ([]byte, error)
	// WebhookResolver resolves the hosts of new webhook URLs (nil: the
	// system resolver; tests make lookups slow with it).
	WebhookResolver *net.Resolver
	// PrepareDB, when set, is given the service's database right after it
	// is opened, before any job of the service can use it (tests install
	// their query guard with it: a hook added later would miss, or race
	// with, the first pass of the background jobs).
	PrepareDB func(db *bun.DB)
}

// Open connects to PostgreSQL and the edge store described by cfg and builds
// the app. With no Redis URL the in-process edge store is used, which is only
// correct for a single instance; that is logged. When a step fails, what the
// steps before it opened is closed, newest first.
func Open(ctx context.Context, cfg config.Config, log *slog.Logger, opt Options) (_ *Service, err error) {
	var opened []io.Closer
	defer func() {
		if err != nil {
			for _, c := range slices.Backward(opened) {
				_ = c.Close()
			}
		}
	}()
	// A statement may run as long as its request may (the request's
	// context cancels it first); statement_timeout stays the backstop,
	// never under its default (docs/helm.md).
	db, err := database.Open(ctx, cfg.DatabaseURL, database.Options{MaxOpenConns: cfg.DBMaxConns, Tracing: opt.Tracing,
		Pooler: cfg.DatabasePooler, StatementTimeout: max(cfg.RequestTimeout, database.DefaultStatementTimeout)})
	if err != nil {
		return nil, err
	}
	opened = append(opened, db)
	warnNoStatementTimeout(ctx, db, cfg, log)
	if opt.PrepareDB != nil {
		opt.PrepareDB(db)
	}
	cursors, err := Cursors(ctx, db)
	if err != nil {
		return nil, err
	}
	hooks, err := webhookOptions(ctx, db, cfg)
	if err != nil {
		return nil, err
	}
	hooks.Resolver = opt.WebhookResolver
	responses, err := ResponseSealer(ctx, db)
	if err != nil {
		return nil, err
	}
	var store edge.Store
	if cfg.RedisURL == "" {
		log.Warn("EVENTAPI_REDIS_URL is unset: using the in-process edge store; rate limits and idempotency are per instance, so run a single replica")
		store = edge.NewMemory()
	} else {
		r, err := edge.NewRedis(cfg.RedisURL, edge.RedisOptions{Tracing: opt.Tracing, Metrics: opt.Metrics, Prefix: opt.RedisPrefix, Timeout: opt.RedisTimeout, Client: cfg.Redis})
		if err != nil {
			return nil, err
		}
		opened = append(opened, r)
		err = r.Ping(ctx)
		if refused := edge.SettingsError(err); refused != nil {
			// A setting, not an outage: the process would run with rate
			// limiting off and every keyed write refused until redeployed.
			return nil, refused
		} else if err != nil {
			log.Warn("Redis is not answering at start; continuing, the edge layer recovers when it returns", "error", err)
		}
		store = r
	}
	if opt.Metrics {
		// The pool's only go_sql_connections_* series (db_system only).
		otelsql.ReportDBStatsMetrics(db.DB, otelsql.WithAttributes(semconv.DBSystemPostgreSQL))
	}
	probe, err := database.Open(ctx, cfg.DatabaseURL, database.Options{MaxOpenConns: 2, Pooler: cfg.DatabasePooler})
	if err != nil {
		return nil, err
	}
	auth := tenancy.NewAuthenticator(db, log)
	s := &Service{DB: db, probe: probe, Edge: store, Auth: auth, Log: log, Drain: &Drain{},
		LargeReads: bulkhead.New(cfg.LargeReads, bulkhead.DefaultWait),
		Writes:     bulkhead.NewWrites(cfg.DBMaxConns, bulkhead.DefaultWait)}
	telemetry.StartRetentionMetrics(ctx)
	s.startRequestLog(ctx, cfg, opt)
	s.startRetention(ctx)
	postgresUp := pingTwice(s.probe.PingContext)
	if opt.Metrics {
		s.unmeterDatabase = meterUp(databaseUpGauge, postgresUp, ReadyTimeout)
	}
	var redisUp func(ctx context.Context) error
	if cfg.RedisURL != "" {
		redisUp = store.Ping
		if opt.Metrics {
			// eventapi_edge_store_up: no series without Redis, whose
			// in-process store cannot fail (docs/observability.md).
			s.unmeterEdge = meterUp(edgeUpGauge, store.Ping, edgeUpTimeout)
		}
	}
	s.App, s.stopApp = build(Deps{
		DB: db, Auth: auth, Edge: store, Cursors: cursors, Log: log,
		RateWindow: cfg.RateWindow, RequestTimeout: cfg.RequestTimeout, V1Limit: cfg.V1RateLimit, V2Limit: cfg.V2RateLimit, V1Sunset: cfg.V1Sunset,
		Ready: postgresUp, Redis: redisUp, Drain: s.Drain,
		Routes: opt.Routes, RequestLog: requestLogSink(s.RequestLog, opt.RequestLogOff), TrustedProxies: cfg.TrustedProxies, Webhooks: hooks,
		FailOpens: &s.FailOpens, JSONEncoder: opt.JSONEncoder, LargeReads: s.LargeReads, Writes: s.Writes, Responses: responses,
	})
	s.startWebhooks = func() { s.webhooks = delivery.Start(db, hooks.Sealer, log, cfg.Webhook) }
	return s, nil
}

// startRequestLog creates today's and the next days' partitions before the
// first request is logged, then keeps maintaining them in the background,
// and starts the buffered writer.
func (s *Service) startRequestLog(ctx context.Context, cfg config.Config, opt Options) {
	mopt := requestlog.MaintainOptions{Retention: cfg.RequestLogRetention}
	if _, err := requestlog.MaintainCounted(ctx, s.DB, mopt); err != nil {
		s.Log.Warn("request log: partition maintenance failed at start; retrying in the background", "error", err.Error())
	}
	mctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.stopMaintenance, s.maintenanceDone = cancel, make(chan struct{})
	go func() {
		defer close(s.maintenanceDone)
		every := opt.MaintainEvery
		if every <= 0 {
			every = requestlog.DefaultEvery
		}
		t := time.NewTimer(every)
		defer t.Stop()
		select {
		case <-mctx.Done():
			return
		case <-t.C:
		}
		requestlog.RunMaintenance(mctx, s.DB, mopt, every, s.Log)
	}()
	wc := opt.RequestLog
	wc.DB, wc.Log = s.DB, s.Log
	if wc.Buffer <= 0 {
		wc.Buffer = cfg.RequestLogBuffer
	}
	if wc.Interval <= 0 {
		wc.Interval = cfg.RequestLogFlushInterval
	}
	s.RequestLog = requestlog.NewWriter(wc)
}

func requestLogSink(w *requestlog.Writer, off bool) reqlog.Sink {
	if off {
		return nil
	}
	return w
}

// Close releases the pools after the app has stopped. The request log's
// buffer is written (within RequestLogCloseTimeout), so records of the
// requests served during the drain are kept, and the keys' last_used_at
// (within 5 s), while the webhook workers let their last attempts end and
// record them (delivery.Worker.Stop: each began before the drain, and ends
// at its 10 s timeout at the latest, so by now within the 10 s the chart's
// grace period leaves for them after the drain; docs/helm.md). The three
// run at the same time. The app's own background work (build's stop: the
// Idempotency-Key middleware's purge and orphans' releaser) is cancelled
// and waited for before the pools it uses close.
func (s *Service) Close() error {
	var logErr error
	flushed, authClosed := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(flushed)
		ctx, cancel := context.WithTimeout(context.Background(), RequestLogCloseTimeout)
		defer cancel()
		logErr = s.RequestLog.Close(ctx)
	}()
	go func() {
		defer close(authClosed)
		s.Auth.Close()
	}()
	s.webhooks.Stop()
	s.stopMaintenance()
	<-s.maintenanceDone
	s.stopRetention()
	<-s.retentionDone
	if s.stopApp != nil { // a Service built by hand (apitest's replica) has none
		s.stopApp()
	}
	<-flushed
	<-authClosed
	if logErr != nil {
		s.Log.Warn("request log: records still buffered at shutdown were lost", "error", logErr.Error())
	}
	for _, unmeter := range []func(){s.unmeterEdge, s.unmeterDatabase} {
		if unmeter != nil {
			unmeter() // before the store or pool it checks is closed
		}
	}
	return errors.Join(s.Edge.Close(), s.probe.Close(), s.DB.Close())
}

// RequestLogCloseTimeout bounds the request log's last flush at shutdown.
const RequestLogCloseTimeout = 5 * time.Second

// warnNoStatementTimeout logs, at start behind a transaction pooler, that
// the sessions run without a statement_timeout when the role and the
// database set none: the service sends none there (PgBouncer refuses it),
// so a statement whose cancel is lost runs on (docs/helm.md).
func warnNoStatementTimeout(ctx context.Context, db *bun.DB, cfg config.Config, log *slog.Logger) {
	if cfg.DatabasePooler != database.PoolerTransaction {
		return
	}
	if none, err := database.NoStatementTimeout(ctx, db); err == nil && none {
		log.Warn("behind the transaction pooler the database sessions run without a statement_timeout: set one on the role, e.g. ALTER ROLE eventapi SET statement_timeout = '15s'",
			"pooler", cfg.DatabasePooler)
	}
}
