package catalogue

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// CreateDatabase creates and migrates a fresh database on the server of
// adminURL and returns its URL and a function that drops it.
func CreateDatabase(ctx context.Context, adminURL string) (string, func() error, error) {
	admin, err := database.Open(ctx, adminURL, database.Options{MaxOpenConns: 1})
	if err != nil {
		return "", nil, fmt.Errorf("PostgreSQL is required at %s: %w", redact(adminURL), err)
	}
	var suffix [6]byte
	_, _ = rand.Read(suffix[:])
	name := "eventapi_bench_" + hex.EncodeToString(suffix[:])
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		_ = admin.Close()
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	drop := func() error {
		defer admin.Close()
		_, err := admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		return err
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", drop, err
	}
	u.Path = "/" + name
	db, err := database.Open(ctx, u.String(), database.Options{MaxOpenConns: 2})
	if err != nil {
		return "", drop, err
	}
	defer db.Close()
	m, err := database.NewMigrator(db)
	if err == nil {
		_, err = m.Up(ctx)
	}
	if err != nil {
		return "", drop, fmt.Errorf("migrate: %w", err)
	}
	return u.String(), drop, nil
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	return u.Redacted()
}

// Org is a seeded organization with a live key holding every scope.
type Org struct {
	ID  uuid.UUID
	Key string
	// Clients is how many clients it holds; ClientIDs lists them.
	Clients   int
	ClientIDs []uuid.UUID
}

// Search terms for the seeded names and emails: Common matches one client
// in eight, Rare exactly one (booking777@…) in any organization of at least
// 777 clients.
const (
	SearchCommon = "lumen"
	SearchRare   = "booking777@"
)

// seedClients inserts n clients in one statement. Names and emails are
// varied enough for the trigram index to matter; one email in five is null.
const seedClients = `
INSERT INTO clients (organization_id, name, email, phone, city, demo)
SELECT ?, 'Client ' || i || ' ' ||
          (ARRAY['Stagecraft','Lumen','Rigging','Audio','Staging','Backline','Truss','Vision'])[1 + i % 8] ||
          ' Productions',
       CASE WHEN i % 5 = 0 THEN NULL
            ELSE 'booking' || i || '@' || (ARRAY['example.com','events.test','tour.example'])[1 + i % 3] END,
       '+1-555-' || lpad((i % 10000)::text, 4, '0'),
       (ARRAY['Austin','Berlin','Chicago','Denver'])[1 + i % 4],
       false
FROM generate_series(1, ?) AS s(i)`

// SeedOrg creates an organization with n clients and a live key, and sets
// its v2 rate limit to rateLimit so the benchmark measures the chain rather
// than 429s.
func SeedOrg(ctx context.Context, db *bun.DB, name string, n, rateLimit int) (Org, error) {
	o, err := tenancy.CreateOrganization(ctx, db, name, nil)
	if err != nil {
		return Org{}, err
	}
	if _, err := tenancy.UpdateOrganization(ctx, db, o.ID, tenancy.OrganizationUpdate{RateLimit: &rateLimit}); err != nil {
		return Org{}, err
	}
	k, err := tenancy.CreateKey(ctx, db, tenancy.NewKey{OrganizationID: o.ID, Name: "bench", Scopes: tenancy.AllScopes,
		Mode: apikey.Live})
	if err != nil {
		return Org{}, err
	}
	if _, err := db.NewRaw(seedClients, o.ID, n).Exec(ctx); err != nil {
		return Org{}, fmt.Errorf("seed clients: %w", err)
	}
	org := Org{ID: o.ID, Key: k.Secret, Clients: n}
	if err := db.NewRaw("SELECT id FROM clients WHERE organization_id = ? ORDER BY created_at, id", o.ID).
		Scan(ctx, &org.ClientIDs); err != nil {
		return Org{}, err
	}
	return org, nil
}

// Prepare creates the app's cursor key (as the app would on start) and
// leaves the seeded database as a long-running one is: planner statistics
// fresh, every row's visibility settled (VACUUM sets the hint bits and the
// visibility map that the first reads of freshly written rows would
// otherwise set, writing pages and WAL in the middle of the first
// measurement), and the seeding's dirty pages written (CHECKPOINT).
func Prepare(ctx context.Context, db *bun.DB) error {
	if _, err := database.Secret(ctx, db, "cursor_hmac", 32); err != nil {
		return err
	}
	for _, sql := range []string{"VACUUM (ANALYZE)", "CHECKPOINT"} {
		if _, err := db.ExecContext(ctx, sql); err != nil {
			return err
		}
	}
	return nil
}
