package storage_test

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/storagetest"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// client is a tenant row of the test's own (the clients table), so the
// generic queries are tested apart from any resource package.
type client struct {
	bun.BaseModel `bun:"table:clients,alias:c"`

	ID             uuid.UUID `bun:"id,pk,type:uuid"`
	OrganizationID uuid.UUID `bun:"organization_id,type:uuid"`
	Name           string    `bun:"name"`
	Email          *string   `bun:"email"`
	Demo           bool      `bun:"demo"`
	CreatedAt      time.Time `bun:"created_at"`
	UpdatedAt      time.Time `bun:"updated_at"`
}

func (c *client) PageKey() storage.Cursor { return storage.Cursor{CreatedAt: c.CreatedAt, ID: c.ID} }

const kind = "client"

// fixture is the storage test fixture with a helper for this file's model.
type fixture struct{ *storagetest.Fixture }

func newFixture(t *testing.T) fixture { return fixture{storagetest.NewFixture(t)} }

// create stores a client named name in org and returns it.
func (f fixture) create(t *testing.T, org tenancy.OrganizationID, name string) *client {
	t.Helper()
	var ch storage.Changes
	ch.Set("name", name)
	c, err := storage.Create[client](context.Background(), f.DB, tenancy.Tenant{Org: org}, ch)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wantCode fails unless err is an *errs.Error with code (or nil for "").
func wantCode(t *testing.T, what string, err error, code errs.Code) {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Fatalf("%s: %v, want no error", what, err)
		}
		return
	}
	if !errs.Is(err, code) {
		t.Fatalf("%s: %v, want %s", what, err, code)
	}
}

func TestGet(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	mine := f.create(t, f.A, "Mine")
	theirs := f.create(t, f.B, "Theirs")
	tx, err := f.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	conn, err := f.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	named := func(name string) storage.Filter {
		return func(q *bun.SelectQuery) *bun.SelectQuery { return q.Where("?TableAlias.name = ?", name) }
	}
	// Each connection kind takes another path: the pool and a transaction
	// the prepared query, a dedicated connection (and any filter) bun's.
	dbs := map[string]bun.IDB{"pool": f.DB, "transaction": tx, "connection": conn}
	tests := []struct {
		name    string
		id      uuid.UUID
		filters []storage.Filter
		code    errs.Code
	}{
		{"own record", mine.ID, nil, ""},
		{"another organization's record", theirs.ID, nil, errs.NotFound},
		{"no such record", uuid.New(), nil, errs.NotFound},
		{"own record, filter matches", mine.ID, []storage.Filter{named("Mine")}, ""},
		{"own record, filter excludes it", mine.ID, []storage.Filter{named("Other")}, errs.NotFound},
		{"another organization's record, filter matches it", theirs.ID, []storage.Filter{named("Theirs")}, errs.NotFound},
	}
	for via, db := range dbs {
		for _, tt := range tests {
			t.Run(via+"/"+tt.name, func(t *testing.T) {
				got, err := storage.Get[client](ctx, db, f.A, tt.id, kind, tt.filters...)
				wantCode(t, "Get", err, tt.code)
				if tt.code == errs.NotFound {
					if e := errs.As(err); e == nil || e.Message != "client not found" {
						t.Fatalf("not_found message %v, want it to name the kind", err)
					}
					return
				}
				if got.ID != mine.ID || got.Name != "Mine" || got.OrganizationID != f.A.UUID {
					t.Fatalf("got %+v, want A's record", got)
				}
			})
		}
	}
}

func TestExists(t *testing.T) {
	f := newFixture(t)
	mine, theirs := f.create(t, f.A, "Mine"), f.create(t, f.B, "Theirs")
	tests := []struct {
		name string
		id   uuid.UUID
		want bool
	}{
		{"own record", mine.ID, true},
		{"another organization's record", theirs.ID, false},
		{"no such record", uuid.New(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := storage.Exists(context.Background(), f.DB, "clients", f.A, tt.id)
			if err != nil || got != tt.want {
				t.Fatalf("Exists = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestCreate(t *testing.T) {
	f := newFixture(t)
	email := "a@example.com"
	tests := []struct {
		name   string
		tenant tenancy.Tenant
		set    map[string]any
		code   errs.Code
		want   client
	}{
		{"organization and demo come from the tenant", tenancy.Tenant{Org: f.A, Demo: true},
			map[string]any{"name": "Demo"}, "", client{Name: "Demo", OrganizationID: f.A.UUID, Demo: true}},
		{"optional column given", tenancy.Tenant{Org: f.B},
			map[string]any{"name": "Mailed", "email": email}, "", client{Name: "Mailed", Email: &email, OrganizationID: f.B.UUID}},
		{"a required column missing is a validation error", tenancy.Tenant{Org: f.A},
			map[string]any{"email": email}, errs.Validation, client{}},
		// Only a key whose organization went away meanwhile (a sandbox
		// deleted under its cached resolution) writes so: 503, retry.
		{"an organization that does not exist is refused", tenancy.Tenant{Org: tenancy.OrganizationID{UUID: uuid.New()}},
			map[string]any{"name": "Orphan"}, errs.ServiceUnavailable, client{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ch storage.Changes
			for _, col := range slices.Sorted(maps.Keys(tt.set)) {
				ch.Set(col, tt.set[col])
			}
			got, err := storage.Create[client](context.Background(), f.DB, tt.tenant, ch)
			wantCode(t, "Create", err, tt.code)
			if tt.code != "" {
				return
			}
			// Both timestamps default to clock_timestamp(), read once each:
			// they may differ by a microsecond (docs/decisions.md, "Timestamps").
			if got.ID == uuid.Nil || got.CreatedAt.IsZero() || got.UpdatedAt.Before(got.CreatedAt) ||
				got.UpdatedAt.Sub(got.CreatedAt) > time.Millisecond {
				t.Fatalf("database defaults not returned: %+v", got)
			}
			if got.Name != tt.want.Name || got.OrganizationID != tt.want.OrganizationID || got.Demo != tt.want.Demo ||
				(got.Email == nil) != (tt.want.Email == nil) || (got.Email != nil && *got.Email != *tt.want.Email) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	mine, theirs := f.create(t, f.A, "Mine"), f.create(t, f.B, "Theirs")
	tests := []struct {
		name string
		id   uuid.UUID
		set  map[string]any
		code errs.Code
		// wantName is A's record's name afterwards.
		wantName string
	}{
		{"no change returns the record as it is", mine.ID, nil, "", "Mine"},
		{"no change on another organization's record", theirs.ID, nil, errs.NotFound, "Mine"},
		{"another organization's record", theirs.ID, map[string]any{"name": "Taken"}, errs.NotFound, "Mine"},
		{"no such record", uuid.New(), map[string]any{"name": "Ghost"}, errs.NotFound, "Mine"},
		{"a required column set to null", mine.ID, map[string]any{"name": nil}, errs.Validation, "Mine"},
		{"own record", mine.ID, map[string]any{"name": "Renamed"}, "", "Renamed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := f.get(t, theirs.ID, f.B)
			var ch storage.Changes
			for col, v := range tt.set {
				ch.Set(col, v)
			}
			got, err := storage.Update[client](ctx, f.DB, f.A, tt.id, kind, ch)
			wantCode(t, "Update", err, tt.code)
			if tt.code == "" && (got.ID != mine.ID || got.Name != tt.wantName) {
				t.Fatalf("Update returned %+v, want A's record named %q", got, tt.wantName)
			}
			if tt.code == "" && ch.Len() > 0 && !got.UpdatedAt.After(got.CreatedAt) {
				t.Fatalf("updated_at not advanced: %+v", got)
			}
			if now := f.get(t, mine.ID, f.A); now.Name != tt.wantName {
				t.Fatalf("A's record is named %q, want %q", now.Name, tt.wantName)
			}
			if after := f.get(t, theirs.ID, f.B); after.Name != before.Name || !after.UpdatedAt.Equal(before.UpdatedAt) {
				t.Fatalf("B's record changed: %+v → %+v", before, after)
			}
		})
	}
}

func (f fixture) get(t *testing.T, id uuid.UUID, org tenancy.OrganizationID) *client {
	t.Helper()
	c, err := storage.Get[client](context.Background(), f.DB, org, id, kind)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestDelete(t *testing.T) {
	f := newFixture(t)
	mine, theirs := f.create(t, f.A, "Mine"), f.create(t, f.B, "Theirs")
	tests := []struct {
		name string
		id   uuid.UUID
		code errs.Code
	}{
		{"another organization's record", theirs.ID, errs.NotFound},
		{"no such record", uuid.New(), errs.NotFound},
		{"own record", mine.ID, ""},
		{"own record again", mine.ID, errs.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, "Delete", storage.Delete[client](context.Background(), f.DB, f.A, tt.id, kind), tt.code)
			if ok, _ := storage.Exists(context.Background(), f.DB, "clients", f.B, theirs.ID); !ok {
				t.Fatal("B's record was deleted")
			}
		})
	}
	if ok, _ := storage.Exists(context.Background(), f.DB, "clients", f.A, mine.ID); ok {
		t.Fatal("A's deleted record is still there")
	}
}
