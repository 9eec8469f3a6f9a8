package server_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestStoppedIsTheLastLine: a process stopped while a webhook attempt is
// with its receiver says that it waits for it, and "eventapi stopped" is
// its last line, after that wait (it was logged before it, so a pod seemed
// to run on after saying it had stopped; docs/webhooks.md, "Shutdown").
func TestStoppedIsTheLastLine(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	held, release := make(chan struct{}, 1), make(chan struct{})
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		select {
		case held <- struct{}{}:
		default:
		}
		<-release
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	// A collector that refuses: the telemetry flush at the stop fails and
	// warns, which must come before the last line too.
	collector, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusing := collector.Addr().String()
	collector.Close()
	srv := apitest.StartProcess(t, "EVENTAPI_DATABASE_URL="+dbURL, "EVENTAPI_DATABASE_POOLER="+pgtest.Pooler(),
		"EVENTAPI_WEBHOOK_ALLOW_PRIVATE=true", "EVENTAPI_DRAIN_DELAY=0", "EVENTAPI_SHUTDOWN_TIMEOUT=5s",
		"OTEL_SDK_DISABLED=false", "OTEL_EXPORTER_OTLP_ENDPOINT=http://"+refusing)
	_, key := processDB(t, dbURL)
	call := func(path, body string) {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.Base()+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("POST %s: %d", path, res.StatusCode)
		}
	}
	call("/api/v2/webhook_endpoints", `{"url":"`+receiver.URL+`/hook","enabled_events":["client.created"]}`)
	call("/api/v2/clients", `{"name":"In flight at the stop"}`)
	select {
	case <-held:
	case <-time.After(60 * time.Second):
		t.Fatal("no webhook attempt reached the receiver")
	}
	srv.Signal(t, syscall.SIGTERM)
	waitFor(t, "the wait for the attempt in flight logged", func() bool {
		return strings.Contains(srv.Logs(), "webhooks: waiting for the attempts in flight to end")
	})
	close(release)
	select {
	case <-srv.Done():
	case <-time.After(60 * time.Second):
		t.Fatal("the process did not exit")
	}
	lines := strings.Split(strings.TrimSpace(srv.Logs()), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, `"msg":"eventapi stopped"`) {
		t.Fatalf("the last log line is %s, want eventapi stopped", last)
	}
	if !strings.Contains(srv.Logs(), `"msg":"telemetry flush"`) {
		t.Errorf("no telemetry flush warning: the flush at the stop reached the refusing collector?\n%s", srv.Logs())
	}
}

// processDB opens the database at dbURL, made for a process the test
// starts, and makes an organization in it with a live key of every scope:
// the database, closed at the test's end, and the key.
func processDB(t *testing.T, dbURL string) (*bun.DB, string) {
	t.Helper()
	ctx := context.Background()
	db, err := database.Open(ctx, dbURL, database.Options{MaxOpenConns: 4, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	org, err := tenancy.CreateOrganization(ctx, db, "Acme", nil)
	if err != nil {
		t.Fatal(err)
	}
	key, err := tenancy.CreateKey(ctx, db, tenancy.NewKey{OrganizationID: org.ID, Name: "process", Scopes: tenancy.AllScopes, Mode: apikey.Live})
	if err != nil {
		t.Fatal(err)
	}
	return db, key.Secret
}
