package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/KimMachineGun/automemlimit/memlimit"
	"github.com/redis/go-redis/v9"

	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// telemetryFlushTimeout bounds the flush of the spans still buffered and
// the last OTLP metrics push when serve stops, together (telemetry.Flush):
// a collector that is down or hangs must not hold the pod past its grace
// period, which counts these 2 s (docs/helm.md).
const telemetryFlushTimeout = 2 * time.Second

// serveLog is where serve writes its log lines: JSON on stdout.
var serveLog io.Writer = os.Stdout

// logStopped writes why serve stopped, when it stopped on an error (a
// setting, a schema to migrate, a listener it could not open), as one JSON
// ERROR line with the rest of the log: the line a pod's log pipeline keeps
// and an alert on level ERROR finds. main also writes the error to stderr,
// in plain text, for a terminal (docs/observability.md, "Traces and log
// lines").
//
// A stop that a signal asked for (SIGTERM while serve waited for PostgreSQL)
// is a WARN line that says so: the error is then the last attempt's, which
// did not stop anything.
func logStopped(ctx context.Context, log *slog.Logger, err error) {
	switch {
	case err == nil:
	case ctx.Err() != nil:
		log.Warn("serve stopped on a signal", "error", err.Error())
	default:
		log.Error("serve stopped", "error", err.Error())
	}
}

func serveCmd(ctx context.Context, args []string, stderr io.Writer) (err error) {
	fs, output := newFlagsNoOutput("serve")
	migrate := fs.Bool("migrate", false, "apply pending migrations before serving")
	check := fs.Bool("check", false, "check the configuration (EVENTAPI_*, OTEL_*, and that Redis takes the URL's settings) and exit without serving")
	if err := parseNoArgs(fs, output, args); err != nil {
		return err
	}
	// The OTEL_* settings are the configuration too: their problems are
	// said with the EVENTAPI_* ones, in one message.
	cfg, err := config.Load()
	if err = errors.Join(err, telemetry.CheckEnv(os.Getenv)); err != nil {
		err = fmt.Errorf("configuration:\n%w", err)
		if !*check {
			log, stopLog := telemetry.NewBufferedLogger(serveLog, "info")
			logStopped(ctx, log, err)
			_ = stopLog()
		}
		return err
	}
	if *check {
		return checkRedisSettings(ctx, cfg, stderr)
	}
	// Deferred first, so it runs last: every line logged until the return
	// is written out.
	log, stopLog := telemetry.NewBufferedLogger(serveLog, cfg.LogLevel)
	defer func() { _ = stopLog() }()
	defer func() { logStopped(ctx, log, err) }()
	// Settings that work against each other, said once (config.Warnings).
	for _, w := range cfg.Warnings() {
		log.Warn(w)
	}
	// Sized once the memory limit is known (config.DefaultLargeReads).
	cfg.FitMemory(setMemoryLimit(ctx, log, memlimit.FromCgroup))
	log.Info("large reads", "slots", cfg.LargeReads)
	// go-redis's own messages join the JSON log instead of stderr, and so
	// do OpenTelemetry's errors (failed exports, at most one line a minute).
	redis.SetLogger(edge.ClientLog(log))
	telemetry.LogOTelErrors(log)
	shutdownTracing, exporting, err := telemetry.SetupTracing(ctx, "eventapi")
	if err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	// "eventapi stopped" is the last line of a service that opened: it
	// follows Close, which waits for what is still running (webhook
	// attempts in flight, up to their 10 s timeout, and the request log's
	// last flush), and the telemetry flush (deferred below, so it runs
	// first), which may wait for a collector and warn.
	var opened bool
	var runErr error
	defer func() {
		if opened {
			log.Info("eventapi stopped", "error", runErr)
		}
	}()
	flushes := []telemetry.Shutdown{shutdownTracing}
	defer func() {
		if err := telemetry.Flush(ctx, telemetryFlushTimeout, flushes...); err != nil {
			log.Warn("telemetry flush", "error", err)
		}
	}()
	metrics, err := telemetry.SetupPrometheusMetrics(ctx, "eventapi")
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	flushes = append(flushes, metrics.Shutdown)
	metricsLn, err := net.Listen("tcp", cfg.MetricsAddr)
	if err != nil {
		return fmt.Errorf("metrics listener: %w", err)
	}
	// The API's port is taken before anything waits for the database or
	// migrates: a port in use ends the start at once, as the metrics one
	// does, not after the wait, the migrations and the webhook workers.
	// Connections made meanwhile are answered by ServeWhileStarting below.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listener: %w", err)
	}
	defer ln.Close() // an early return; the server closes it on its own way out
	metricsCtx, stopMetrics := context.WithCancel(context.WithoutCancel(ctx))
	defer stopMetrics()
	go func() {
		if err := telemetry.ServeMetrics(metricsCtx, metricsLn, metrics.Handler); err != nil {
			log.Error("metrics listener stopped", "error", err)
		}
	}()
	// Until the service is open the port answers the probes: alive, not
	// ready (server.ServeWhileStarting).
	// eventapi_database_up reads 0 while PostgreSQL does not answer, from
	// the first failed attempt, as it does once the service is open.
	stopStarting, waiting := server.ServeWhileStarting(ln, log, cfg.V1Sunset), server.MeterDatabaseWait()
	var svc *server.Service
	err = database.UntilReachable(ctx, log, "eventapi", func() error {
		if err := prepareSchema(ctx, cfg, log, *migrate); err != nil {
			waiting.Failed()
			return err
		}
		svc, err = server.Open(ctx, cfg, log, server.Options{Tracing: exporting, Metrics: true})
		if err != nil {
			waiting.Failed()
		}
		return err
	})
	waiting.Stop()
	stopStarting()
	if err != nil {
		return err
	}
	opened = true
	defer svc.Close()
	svc.StartWebhooks()
	// A second SIGTERM or SIGINT cuts the drain delay short (the first one
	// cancels ctx in main, so the watch cannot end on ctx: it ends when
	// serve returns).
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(signals)
	hurry, served := make(chan struct{}), make(chan struct{})
	defer close(served)
	go func() {
		for range 2 {
			select {
			case <-signals:
			case <-served:
				return
			}
		}
		close(hurry)
	}()
	log.Info("eventapi listening", "addr", ln.Addr().String(), "metrics_addr", metricsLn.Addr().String(), "redis", cfg.RedisURL != "", "tracing", exporting)
	err = server.RunWith(ctx, svc.App, ln, server.Shutdown{
		Drain: svc.Drain, OnDrain: svc.QuiesceWebhooks, Delay: cfg.DrainDelay, Hurry: hurry, Timeout: cfg.ShutdownTimeout, Log: log})
	// The failures the outage lines held back, before the process ends.
	telemetry.FlushOutageLogs(context.WithoutCancel(ctx))
	runErr = err
	return err
}

// checkRedisSettings is serve --check past the configuration: it says the
// configuration's warnings, and a Redis
// that refuses the URL's own settings ends the check as it would end the
// start (edge.SettingsError); one that is down does not, since serve
// starts without it, rate limits failing open and keyed writes refused
// until it answers (docs/edge.md, "When Redis is unavailable"). make run
// checks this way before its demo step revokes the last run's keys.
func checkRedisSettings(ctx context.Context, cfg config.Config, stderr io.Writer) error {
	note := ""
	if cfg.RedisURL != "" {
		// go-redis's own lines (a failed dial) would reach stderr.
		redis.SetLogger(edge.ClientLog(slog.New(slog.DiscardHandler)))
		r, err := edge.NewRedis(cfg.RedisURL, edge.RedisOptions{Client: cfg.Redis})
		if err != nil {
			return err
		}
		defer r.Close()
		err = r.Ping(ctx)
		if refused := edge.SettingsError(err); refused != nil {
			return refused
		} else if err != nil {
			note = fmt.Sprintf(" (Redis is not answering: %v; serve starts without it: rate limits fail open and keyed writes get 503 until it answers)", err)
		}
	}
	// The settings that work against each other, which serve warns of at
	// start (config.Warnings), are said here too.
	for _, w := range cfg.Warnings() {
		note += "\nserve: warning: " + w
	}
	_, err := fmt.Fprintf(stderr, "serve: the configuration is usable%s\n", note)
	return err
}

// prepareSchema applies the pending migrations when migrate is set, then
// checks the schema the service will serve from (requireSchema).
func prepareSchema(ctx context.Context, cfg config.Config, log *slog.Logger, migrate bool) error {
	if migrate {
		if err := migrateUp(ctx, cfg, log); err != nil {
			return err
		}
	}
	opt := database.Options{MaxOpenConns: 1, Pooler: cfg.DatabasePooler}
	return withMigrator(ctx, cfg.DatabaseURL, opt, func(m *database.Migrator) error {
		return requireSchema(ctx, m, log)
	})
}

// migrateUp is serve --migrate: every pending migration, on the direct URL
// when one is set (DDL and the migration lock are better off without a
// transaction pooler), waiting for another pod's migrator if need be.
func migrateUp(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	opt := database.Options{MaxOpenConns: 2, Pooler: migrationPooler(cfg)}
	return directURLRefused(cfg, withMigrator(ctx, cfg.MigrationURL(), opt, func(m *database.Migrator) error {
		m.Notify = func(msg string) { log.Info(msg) }
		names, err := m.Up(ctx)
		if len(names) > 0 {
			log.Info("migrations applied", "migrations", names)
		}
		return err
	}))
}

// requireSchema refuses a database that lacks migrations this binary
// knows: its routes would fail on the missing tables while /readyz said
// ready. It refuses a moved database that `migrate up` has not mended
// too (database.MovedFeed): one whose new changes would sort before the
// restored ones, behind every saved cursor, or whose sequences a logical
// replication left behind, where every write that records a change would
// fail. A database that only changed clusters since `migrate up` last ran
// is served with one warning line, since a pg_upgrade changes the cluster
// too and must not stop pods from starting. A database holding
// migrations this binary does not know (a newer release migrated it, and
// this pod is an old one of a rolling update) is served, with one warning
// line: migrations stay compatible with the release before them
// (docs/helm.md, "Upgrades and migrations").
func requireSchema(ctx context.Context, m *database.Migrator, log *slog.Logger) error {
	s, err := m.Schema(ctx)
	if err != nil {
		return err
	}
	if len(s.Pending) > 0 {
		return errors.New(database.DescribePending(s.Pending))
	}
	if len(s.Unknown) > 0 {
		log.Warn(database.DescribeUnknown(s.Unknown)+": serving on its schema", "unknown_migrations", s.Unknown)
		return nil
	}
	warning, err := m.MovedFeed(ctx)
	if err != nil {
		return err
	}
	if warning != "" {
		log.Warn(warning)
	}
	return nil
}
