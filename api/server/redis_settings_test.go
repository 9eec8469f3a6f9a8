package server_test

import (
	"context"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestOpenRefusesRedisSettingsRedisRefuses: a Redis URL whose database
// number the server does not have ends the start, naming the setting; it
// once started with rate limiting off and every keyed write refused,
// logged as a Redis that is down.
func TestOpenRefusesRedisSettingsRedisRefuses(t *testing.T) {
	u, err := url.Parse(pgtest.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/99999"
	env := map[string]string{"EVENTAPI_DATABASE_URL": pgtest.NewDatabase(t), "EVENTAPI_REDIS_URL": u.String(),
		"EVENTAPI_DATABASE_POOLER": pgtest.Pooler()}
	cfg, err := config.FromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	svc, err := server.Open(context.Background(), cfg, slog.New(slog.DiscardHandler), server.Options{})
	if err == nil {
		svc.Close()
		t.Fatal("Open started with a Redis database number the server does not have")
	}
	if !strings.Contains(err.Error(), "EVENTAPI_REDIS_URL") || !strings.Contains(err.Error(), "DB index is out of range") {
		t.Fatalf("Open: %v, want the setting and Redis's reply named", err)
	}
}
