package rls

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestMain runs the package; the role is dropped and the pool closed before
// pgtest drops the database.
func TestMain(m *testing.M) { pgtest.Main(closing{m}) }

type closing struct{ m *testing.M }

func (c closing) Run() int {
	code := c.m.Run()
	if partial != nil {
		if createdRole != "" {
			dropRole(partial.db)
		}
		_ = partial.db.Close()
	}
	return code
}

// createdRole is the role this run created (roles are cluster-wide, so it is
// dropped at the end; the database itself is dropped by pgtest).
var createdRole string

func dropRole(db *bun.DB) {
	ctx := context.Background()
	for _, q := range []string{
		"DROP POLICY tenant ON clients",
		"REVOKE ALL ON clients FROM " + createdRole,
		"REVOKE USAGE ON SCHEMA public FROM " + createdRole,
		"DROP ROLE " + createdRole,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			fmt.Printf("rls cleanup %q: %v\n", q, err)
		}
	}
}

// perOrg clients are seeded for each of the two organizations.
const perOrg = 1000

type fixture struct {
	db *bun.DB
	// role is the non-owner role the policy applies to (superusers and the
	// table owner bypass RLS); unique per run, as roles are cluster-wide.
	role       string
	orgA, orgB uuid.UUID
	idsA       []uuid.UUID
	idB        uuid.UUID // one of B's clients
}

var (
	sharedOnce sync.Once
	shared     *fixture
	partial    *fixture // set as soon as the database is open, for the cleanup
)

func setup(tb testing.TB) *fixture {
	tb.Helper()
	sharedOnce.Do(func() {
		ctx := context.Background()
		db, err := database.Open(ctx, pgtest.NewDatabase(tb), database.Options{MaxOpenConns: 4, Pooler: pgtest.Pooler()})
		if err != nil {
			tb.Fatalf("open database: %v", err)
		}
		suffix := make([]byte, 4)
		_, _ = rand.Read(suffix)
		f := &fixture{db: db, role: "eventapi_rls_bench_" + hex.EncodeToString(suffix)}
		partial = f
		for _, org := range []*uuid.UUID{&f.orgA, &f.orgB} {
			o, err := tenancy.CreateOrganization(ctx, db, "rls "+uuid.NewString()[:8], nil)
			if err != nil {
				tb.Fatalf("create organization: %v", err)
			}
			*org = o.ID
		}
		for _, q := range []string{
			fmt.Sprintf(`/* every organization: seeding */ INSERT INTO clients (organization_id, name, email, city)
				SELECT o, 'Client ' || g, 'c' || g || '@example.com', 'Berlin'
				FROM unnest(ARRAY['%s', '%s']::uuid[]) o, generate_series(1, %d) g`, f.orgA, f.orgB, perOrg),
			"ANALYZE clients",
			"CREATE ROLE " + f.role + " NOLOGIN",
			"GRANT USAGE ON SCHEMA public TO " + f.role,
			"GRANT SELECT ON clients TO " + f.role,
			"ALTER TABLE clients ENABLE ROW LEVEL SECURITY",
			`CREATE POLICY tenant ON clients USING (organization_id = current_setting('eventapi.org', true)::uuid)`,
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				tb.Fatalf("%s: %v", q, err)
			}
			if strings.HasPrefix(q, "CREATE ROLE") {
				createdRole = f.role
			}
		}
		if err := db.NewRaw("SELECT id FROM clients WHERE organization_id = ? ORDER BY id", f.orgA).Scan(ctx, &f.idsA); err != nil {
			tb.Fatal(err)
		}
		if err := db.NewRaw("SELECT id FROM clients WHERE organization_id = ? LIMIT 1", f.orgB).Scan(ctx, &f.idB); err != nil {
			tb.Fatal(err)
		}
		shared = f
	})
	if shared == nil {
		tb.Fatal("fixture setup failed earlier in this run")
	}
	return shared
}
