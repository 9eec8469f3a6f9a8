package idempotency

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestReadOnlyDatabase: while PostgreSQL refuses writes (SQLSTATE 25006:
// a hot standby, a database set default_transaction_read_only, a managed
// database read-only at full disk), a write answers 503
// service_unavailable with Retry-After and no database text, keyed or not,
// where it answered 500 internal_error. The keyed write leaves its key
// free: once the database takes writes again, its retry executes.
func TestReadOnlyDatabase(t *testing.T) {
	ctx := context.Background()
	// A pool straight to the server: a transaction pooler could hand out a
	// server connection opened before the setting changed.
	pooled, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	direct, err := url.Parse(pgtest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(pooled.Path, "/")
	direct.Path = pooled.Path
	admin, err := database.Open(ctx, pgtest.AdminURL(), database.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close() })
	open := func() *bun.DB {
		db, err := database.Open(ctx, direct.String(), database.Options{MaxOpenConns: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		return db
	}
	setReadOnly := func(on string) {
		if _, err := admin.ExecContext(ctx, "ALTER DATABASE "+name+" SET default_transaction_read_only = "+on); err != nil {
			t.Fatal(err)
		}
	}

	rw := open()
	org, err := tenancy.CreateOrganization(ctx, rw, "Read Only", nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = rw.Close()
	setReadOnly("on")
	store := edge.NewMemory()
	app := func(db *bun.DB) *fiber.App {
		env := &rest.Env{DB: db}
		return testApp(t, org.ID, Config{Store: store, DB: db}, func(app *fiber.App) {
			app.Post("/api/v2/clients", func(c *fiber.Ctx) error {
				_, err := env.Conn(c.UserContext()).NewRaw("INSERT INTO clients (organization_id, name) VALUES (?, 'c')", org.ID).
					Exec(c.UserContext())
				if err != nil {
					return database.Error(err)
				}
				return c.Status(201).SendString("{}")
			})
		})
	}
	ro := app(open())
	for _, key := range []string{"", "ro-1"} {
		res := send(t, ro, "POST", "/api/v2/clients", key, `{"name":"c"}`)
		if res.status != 503 || !strings.Contains(res.body, `"code":"service_unavailable"`) || res.header.Get(fiber.HeaderRetryAfter) == "" {
			t.Fatalf("write with key %q on a read-only database: %d %s (Retry-After %q), want 503 service_unavailable with Retry-After",
				key, res.status, res.body, res.header.Get(fiber.HeaderRetryAfter))
		}
		// The request id is left out: random hex, it may hold "25006".
		text := requestID.ReplaceAllString(res.body, "")
		for _, leak := range []string{"read-only", "SQLSTATE", "25006", "cannot execute"} {
			if strings.Contains(text, leak) {
				t.Errorf("write with key %q: body %s carries database text %q", key, res.body, leak)
			}
		}
	}

	setReadOnly("off")
	if res := send(t, app(open()), "POST", "/api/v2/clients", "ro-1", `{"name":"c"}`); res.status != 201 || res.header.Get(HeaderReplayed) != "" {
		t.Fatalf("retry once the database takes writes: %d %s (replayed %q), want it executed (201)", res.status, res.body, res.header.Get(HeaderReplayed))
	}
}

// requestID matches the request id of an error envelope.
var requestID = regexp.MustCompile(`"request_id":"[^"]*"`)
