package apitest

import (
	"context"
	"io"

	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/tenancy"
)

// Replica starts a second instance of e's app, as a second pod would run:
// its own Fiber app, PostgreSQL pool and key cache on the same database, and
// the same edge store (the same Redis keyspace), so rate limits and
// Idempotency-Keys are shared exactly as between two pods. Use it to prove
// that a rule holds across instances, not just across goroutines.
func (e *Env) Replica() *Env {
	e.T.Helper()
	ctx := context.Background()
	db, err := database.Open(ctx, e.Cfg.DatabaseURL, database.Options{MaxOpenConns: e.Cfg.DBMaxConns, Pooler: e.Cfg.DatabasePooler})
	if err != nil {
		e.T.Fatal(err)
	}
	cursors, err := server.Cursors(ctx, db)
	if err != nil {
		_ = db.Close()
		e.T.Fatal(err)
	}
	responses, err := server.ResponseSealer(ctx, db)
	if err != nil {
		_ = db.Close()
		e.T.Fatal(err)
	}
	log := telemetry.NewLogger(io.Discard, "error")
	auth := tenancy.NewAuthenticator(db, log)
	app := server.New(server.Deps{
		DB: db, Auth: auth, Edge: e.Svc.Edge, Cursors: cursors, Log: log,
		RateWindow: e.Cfg.RateWindow, V1Limit: e.Cfg.V1RateLimit, V2Limit: e.Cfg.V2RateLimit, V1Sunset: e.Cfg.V1Sunset,
		Ready: func(ctx context.Context) error { return db.PingContext(ctx) }, Responses: responses,
	})
	// The edge store belongs to e: the replica must not close it.
	e.T.Cleanup(func() { _ = app.Shutdown(); auth.Close(); _ = db.Close() })
	return &Env{T: e.T, Cfg: e.Cfg, Svc: &server.Service{App: app, DB: db, Edge: e.Svc.Edge, Auth: auth, Log: log}}
}

// Via returns o sending its requests through env (another instance of the
// same app), with the same organization and key.
func (o *Org) Via(env *Env) *Org {
	c := *o
	c.env = env
	return &c
}
