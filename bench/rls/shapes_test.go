package rls

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/eventapi/eventapi/platform/database"
)

const columns = `id, organization_id, name, email, phone, address, city, state, zip, notes, demo, created_at, updated_at`

// The request shapes, with real parameters as api/storage sends the detail
// lookup. filtered keeps the organization filter in the SQL (the policy is a
// backstop, not a replacement); unfiltered leaves it to the policy, for the
// tests that prove the policy filters.
const (
	detailSQL        = `SELECT ` + columns + ` FROM clients WHERE organization_id = $1 AND id = $2 LIMIT 1`
	listSQL          = `SELECT ` + columns + ` FROM clients WHERE organization_id = $1 ORDER BY created_at, id LIMIT 50`
	unfilteredByID   = `SELECT ` + columns + ` FROM clients WHERE id = $2 AND $1::uuid IS NOT NULL LIMIT 1`
	setTenantAndRole = `SELECT set_config('eventapi.org', $1, true), set_config('role', $2, true)`
)

type row struct {
	id, org                                        uuid.UUID
	name                                           string
	email, phone, address, city, state, zip, notes sql.NullString
	demo                                           bool
	created, updated                               sql.NullTime
}

func (r *row) dest() []any {
	return []any{&r.id, &r.org, &r.name, &r.email, &r.phone, &r.address, &r.city, &r.state, &r.zip, &r.notes,
		&r.demo, &r.created, &r.updated}
}

// run is one way of sending a query for an organization; it returns the
// number of rows.
type run func(ctx context.Context, f *fixture, query string, org, id uuid.UUID) (int, error)

// plain is today's shape: one statement on the pool, no transaction.
func plain(ctx context.Context, f *fixture, query string, org, id uuid.UUID) (int, error) {
	rows, err := f.db.DB.QueryContext(ctx, query, args(query, org, id)...)
	if err != nil {
		return 0, err
	}
	return count(rows)
}

// rlsTx is BEGIN, set the organization (and the role the policy applies
// to) for the transaction, the query, COMMIT: four round trips.
func rlsTx(ctx context.Context, f *fixture, query string, org, id uuid.UUID) (int, error) {
	tx, err := f.db.DB.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, setTenantAndRole, org.String(), f.role); err != nil {
		return 0, err
	}
	rows, err := tx.QueryContext(ctx, query, args(query, org, id)...)
	if err != nil {
		return 0, err
	}
	n, err := count(rows)
	if err != nil {
		return 0, err
	}
	return n, tx.Commit()
}

// rlsPipeline sends the settings and the query as one pgx batch: one round
// trip, one implicit transaction (the local settings end with it).
func rlsPipeline(ctx context.Context, f *fixture, query string, org, id uuid.UUID) (int, error) {
	conn, err := f.db.DB.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	n := 0
	err = conn.Raw(func(dc any) error {
		c := database.PgxConn(dc)
		b := &pgx.Batch{}
		b.Queue(setTenantAndRole, org.String(), f.role)
		b.Queue(query, args(query, org, id)...).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var r row
				if err := rows.Scan(r.dest()...); err != nil {
					return err
				}
				n++
			}
			return rows.Err()
		})
		return c.SendBatch(ctx, b).Close()
	})
	return n, err
}

func args(query string, org, id uuid.UUID) []any {
	if query == listSQL {
		return []any{org}
	}
	return []any{org, id}
}

func count(rows *sql.Rows) (int, error) {
	defer rows.Close()
	n := 0
	for rows.Next() {
		var r row
		if err := rows.Scan(r.dest()...); err != nil {
			return 0, err
		}
		n++
	}
	return n, rows.Err()
}

var ways = []struct {
	name string
	run  run
}{{"plain", plain}, {"rls_tx", rlsTx}, {"rls_pipeline", rlsPipeline}}

func mustCount(n int, err error, want int, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n != want {
		return fmt.Errorf("%s: %d rows, want %d", what, n, want)
	}
	return nil
}
