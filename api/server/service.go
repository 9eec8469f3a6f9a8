package server

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/storage"
	"github.com/eventapi/eventapi/tenancy"
)

// Service is a wired app with the pools it owns.
type Service struct {
	App  *fiber.App
	DB   *bun.DB
	Edge edge.Store
	Auth *tenancy.Authenticator
	Log  *slog.Logger
}

// Options adjusts Open for tests.
type Options struct {
	// Tracing enables the SQL and Redis span hooks.
	Tracing bool
	// Routes registers extra protected v2 routes.
	Routes func(v2 fiber.Router)
	// RedisPrefix namespaces the Redis keys (tests isolate themselves with it).
	RedisPrefix string
	// RedisTimeout bounds each edge-store operation (default
	// edge.DefaultTimeout, 50ms; tests on a loaded machine raise it).
	RedisTimeout time.Duration
}

// Open connects to PostgreSQL and the edge store described by cfg and builds
// the app. With no Redis URL the in-process edge store is used, which is only
// correct for a single instance; that is logged.
func Open(ctx context.Context, cfg config.Config, log *slog.Logger, opt Options) (*Service, error) {
	db, err := database.Open(ctx, cfg.DatabaseURL, database.Options{MaxOpenConns: cfg.DBMaxConns, Tracing: opt.Tracing})
	if err != nil {
		return nil, err
	}
	key, err := database.Secret(ctx, db, "cursor_hmac", 32)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	var store edge.Store
	if cfg.RedisURL == "" {
		log.Warn("EVENTAPI_REDIS_URL is unset: using the in-process edge store; rate limits and idempotency are per instance, so run a single replica")
		store = edge.NewMemory()
	} else {
		r, err := edge.NewRedis(cfg.RedisURL, edge.RedisOptions{Tracing: opt.Tracing, Prefix: opt.RedisPrefix, Timeout: opt.RedisTimeout})
		if err != nil {
			_ = db.Close()
			return nil, err
		}
		if err := r.Ping(ctx); err != nil {
			log.Warn("Redis is not answering at start; continuing, the edge layer recovers when it returns", "error", err)
		}
		store = r
	}
	auth := tenancy.NewAuthenticator(db, log)
	s := &Service{DB: db, Edge: store, Auth: auth, Log: log}
	s.App = New(Deps{
		DB: db, Auth: auth, Edge: store, Cursors: storage.NewCursors(key), Log: log,
		RateWindow: cfg.RateWindow, V1Limit: cfg.V1RateLimit, V2Limit: cfg.V2RateLimit, V1Sunset: cfg.V1Sunset,
		Ready: func(ctx context.Context) error {
			if err := db.PingContext(ctx); err != nil {
				return err
			}
			if cfg.RedisURL != "" {
				return store.Ping(ctx)
			}
			return nil
		},
		Routes: opt.Routes,
	})
	return s, nil
}

// Close releases the pools after the app has stopped.
func (s *Service) Close() error {
	s.Auth.Close()
	return errors.Join(s.Edge.Close(), s.DB.Close())
}
