package database_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestMigrationsUpDownUp(t *testing.T) {
	ctx := context.Background()
	db, err := database.Open(ctx, pgtest.NewEmptyDatabase(t), database.Options{MaxOpenConns: 4, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := database.NewMigrator(db)
	if err != nil {
		t.Fatal(err)
	}
	tables := func() int {
		var n int
		if err := db.NewRaw("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public' AND table_name NOT LIKE 'schema_migration%'").Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	up, err := m.Up(ctx)
	if err != nil || len(up) == 0 {
		t.Fatalf("up: %v %v", up, err)
	}
	full := tables()
	if again, err := m.Up(ctx); err != nil || len(again) != 0 {
		t.Fatalf("second up applied %v (%v)", again, err)
	}
	if down, err := m.Down(ctx, database.DownTo{}); !errors.Is(err, database.ErrWholeSchema) || len(down) != 0 {
		t.Fatalf("down of the only group without all: %v %v, want a refusal", down, err)
	}
	if full != tables() {
		t.Fatal("a refused down changed the schema")
	}
	if _, err := m.Down(ctx, database.DownTo{All: true}); err != nil {
		t.Fatal(err)
	}
	if n := tables(); n != 0 {
		t.Fatalf("%d tables left after down", n)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if n := tables(); n != full {
		t.Fatalf("up after down made %d tables, want %d", n, full)
	}
	st, err := m.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if !s.Applied {
			t.Errorf("%s not applied", s.Name)
		}
	}
}

func TestConcurrentMigratorsDoNotRace(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewEmptyDatabase(t)
	var wg sync.WaitGroup
	errc := make(chan error, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := database.Open(ctx, url, database.Options{MaxOpenConns: 2, Pooler: pgtest.Pooler()})
			if err != nil {
				errc <- err
				return
			}
			defer db.Close()
			m, err := database.NewMigrator(db)
			if err == nil {
				_, err = m.Up(ctx)
			}
			errc <- err
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Fatalf("concurrent migrate: %v", err)
		}
	}
}

func TestErrorMapsConstraintViolationsWithoutDatabaseText(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org := uuid.New()
	if _, err := db.NewRaw("INSERT INTO organizations (id, name) VALUES (?, 'x')", org).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.NewRaw("INSERT INTO equipment_categories (organization_id, name) VALUES (?, 'Audio')", org).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		query string
		args  []any
		code  errs.Code
		field string
	}{
		{"unique", "INSERT INTO equipment_categories (organization_id, name) VALUES (?, 'AUDIO')", []any{org}, errs.DuplicateRecord, ""},
		{"foreign key", "INSERT INTO events (organization_id, name, start_date, end_date, venue, client_id) VALUES (?, 'e', now(), now() + interval '1 day', 'v', ?)", []any{org, uuid.New()}, errs.Validation, "client_id"},
		{"check", "INSERT INTO events (organization_id, name, start_date, end_date, venue) VALUES (?, 'e', now(), now() - interval '1 day', 'v')", []any{org}, errs.Validation, ""},
		{"not null", "INSERT INTO clients (organization_id, name) VALUES (?, NULL)", []any{org}, errs.Validation, "name"},
		{"bad text", "SELECT 'not-a-uuid'::uuid", nil, errs.Validation, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := db.NewRaw(tt.query, tt.args...).Exec(ctx)
			if err == nil {
				t.Fatal("expected a database error")
			}
			e := errs.As(database.Error(err))
			if e.Code != tt.code {
				t.Fatalf("code = %s, want %s (%v)", e.Code, tt.code, err)
			}
			if tt.field != "" {
				d, ok := e.Details.(errs.ValidationDetails)
				if !ok || d.Fields[0].Field != tt.field {
					t.Errorf("details = %#v, want field %s", e.Details, tt.field)
				}
			}
			for _, leak := range []string{"violates", "SQLSTATE", "constraint", "uuid:", "duplicate key"} {
				if strings.Contains(e.Message, leak) {
					t.Errorf("message %q leaks %q", e.Message, leak)
				}
			}
		})
	}
}

func TestErrorMapsLostConnectionToUnavailable(t *testing.T) {
	ctx := context.Background()
	db := pgtest.OpenDirect(t)
	var pid int
	if err := db.NewRaw("SELECT 1").Scan(ctx, &pid); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.NewRaw("SELECT pg_backend_pid()").Scan(ctx, &pid); err != nil {
		t.Fatal(err)
	}
	if _, err := db.NewRaw("SELECT pg_terminate_backend(?)", pid).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = conn.ExecContext(ctx, "SELECT 1")
	if err == nil {
		t.Fatal("query on a terminated connection succeeded")
	}
	if e := errs.As(database.Error(err)); e.Code != errs.ServiceUnavailable {
		t.Fatalf("code = %s for %v", e.Code, err)
	}
	_, err = database.Open(ctx, "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1", database.Options{})
	if err == nil {
		t.Fatal("open on a closed port succeeded")
	}
}
