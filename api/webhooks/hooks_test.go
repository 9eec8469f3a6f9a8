package webhooks_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/webhooks/delivery"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// pause holds the first of the worker's statements that contain marker,
// before it runs or, with after, once it has returned, until the test
// closes resume; reached is closed when it is held. It stands between two
// steps of a delivery, where the test makes something happen.
type pause struct {
	marker  string
	after   bool
	reached chan struct{}
	resume  chan struct{}
	once    *sync.Once
}

func newPause(marker string, after bool) pause {
	return pause{marker: marker, after: after, reached: make(chan struct{}), resume: make(chan struct{}), once: new(sync.Once)}
}

func (p pause) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if !p.after {
		p.hold(e)
	}
	return ctx
}

func (p pause) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if p.after {
		p.hold(e)
	}
}

func (p pause) hold(e *bun.QueryEvent) {
	if strings.Contains(e.Query, p.marker) {
		p.once.Do(func() {
			close(p.reached)
			<-p.resume
		})
	}
}

// wait returns once the statement is held.
func (p pause) wait(t *testing.T) {
	t.Helper()
	select {
	case <-p.reached:
	case <-time.After(60 * time.Second):
		t.Fatalf("no statement holding %q ran", p.marker)
	}
}

// failQuery fails every statement that contains marker, as a database that
// cannot run it would: the statement gets a cancelled context.
type failQuery struct{ marker string }

func (f failQuery) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if f.marker != "" && strings.Contains(e.Query, f.marker) {
		failed, cancel := context.WithCancel(ctx)
		cancel()
		return failed
	}
	return ctx
}

func (failQuery) AfterQuery(context.Context, *bun.QueryEvent) {}

// startWorker runs a worker of one slot over a pool of its own with hooks,
// beside env's app (whose own worker the test turned off), and stops it at
// the test's end. tune adjusts env's delivery settings.
func startWorker(t *testing.T, env *apitest.Env, hooks []bun.QueryHook, tune func(*config.Webhook)) *delivery.Worker {
	t.Helper()
	return startLoggedWorker(t, env, hooks, tune, slog.New(slog.DiscardHandler))
}

// startLoggedWorker is startWorker writing its log to log.
func startLoggedWorker(t *testing.T, env *apitest.Env, hooks []bun.QueryHook, tune func(*config.Webhook), log *slog.Logger) *delivery.Worker {
	t.Helper()
	db, err := database.Open(context.Background(), env.Cfg.DatabaseURL, database.Options{MaxOpenConns: 4, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hooks {
		db = db.WithQueryHook(h)
	}
	cfg := env.Cfg.Webhook
	cfg.Workers = 1
	if tune != nil {
		tune(&cfg)
	}
	w := delivery.Start(db, sealerOf(t, env), log, cfg)
	t.Cleanup(func() {
		w.Stop()
		_ = db.Close()
	})
	return w
}
