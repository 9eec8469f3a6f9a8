package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/requestlog"
)

// TestCloseFlushesTheRequestLog: the writer would wait an hour before its
// next batch, so the record of a request served just before shutdown reaches
// the table only through Close, which the serve command runs after the HTTP
// server has drained and before the pools close.
func TestCloseFlushesTheRequestLog(t *testing.T) {
	env := apitest.New(t, func(_ *config.Config, o *server.Options) {
		o.RequestLog = requestlog.WriterConfig{Interval: time.Hour}
	})
	org := env.NewOrg("Draining")
	reqID := org.Get("/api/v2/events").Header.Get("X-Request-Id")
	if err := env.Svc.App.Shutdown(); err != nil {
		t.Fatal(err)
	}
	if err := env.Svc.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := database.Open(ctx, env.Cfg.DatabaseURL, database.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.NewRaw("SELECT count(*) FROM request_logs WHERE request_id = ?", reqID).Scan(ctx, &n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("request %s: %d rows after Close, want 1", reqID, n)
	}
}
