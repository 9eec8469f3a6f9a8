package database_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestFiguresMustBeFinite: a figure written by SQL directly cannot be NaN or
// infinite (migration 20261125020100), since every answer that reads it
// would fail; finite values still pass.
func TestFiguresMustBeFinite(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	var org, quote, invoice string
	scan := func(dest *string, sql string, args ...any) {
		t.Helper()
		if err := db.NewRaw(sql, args...).Scan(ctx, dest); err != nil {
			t.Fatal(err)
		}
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.NewRaw(sql, args...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	scan(&org, "INSERT INTO organizations (name) VALUES ('Acme') RETURNING id")
	exec(`INSERT INTO equipment (organization_id, name, daily_rate, case_length_in, case_width_in, case_height_in, weight_lbs)
		VALUES (?, 'Amp', 10, 1, 1, 1, 1)`, org)
	scan(&quote, "INSERT INTO quotes (organization_id, quote_number, title) VALUES (?, 'Q-1', 'Show') RETURNING id", org)
	scan(&invoice, "INSERT INTO invoices (organization_id, invoice_number, due_date) VALUES (?, 'I-1', '2026-12-01') RETURNING id", org)
	exec("INSERT INTO quote_line_items (organization_id, quote_id, position, quantity, unit_price, line_total) VALUES (?, ?, 0, 1, 1, 1)", org, quote)
	exec("INSERT INTO invoice_line_items (organization_id, invoice_id, position, quantity, unit_price, line_total) VALUES (?, ?, 0, 1, 1, 1)", org, invoice)

	tests := []struct {
		table, column, value string
		refused              bool
	}{
		{"equipment", "weight_lbs", "NaN", true},
		{"equipment", "weight_lbs", "Infinity", true},
		{"equipment", "weight_lbs", "2.5", false},
		{"equipment", "case_length_in", "NaN", true},
		{"equipment", "case_width_in", "Infinity", true},
		{"equipment", "case_height_in", "NaN", true},
		{"equipment", "daily_rate", "NaN", true},
		{"equipment", "daily_rate", "12.50", false},
		{"quotes", "total_amount", "NaN", true},
		{"quote_line_items", "unit_price", "NaN", true},
		{"quote_line_items", "line_total", "NaN", true},
		{"invoices", "total_amount", "NaN", true},
		{"invoice_line_items", "unit_price", "NaN", true},
		{"invoice_line_items", "line_total", "NaN", true},
		{"invoice_line_items", "line_total", "3", false},
	}
	for _, tt := range tests {
		t.Run(tt.table+"."+tt.column+"="+tt.value, func(t *testing.T) {
			err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
				_, err := tx.NewRaw("UPDATE ? SET ? = ?::text::"+columnType(tt.column)+" WHERE organization_id = ?",
					bun.Ident(tt.table), bun.Ident(tt.column), tt.value, org).Exec(ctx)
				if err == nil {
					return errRollback
				}
				return err
			})
			var pg *pgconn.PgError
			refused := errors.As(err, &pg) && pg.Code == "23514"
			if refused != tt.refused || (!refused && !errors.Is(err, errRollback)) {
				t.Fatalf("refused %v (%v), want refused %v", refused, err, tt.refused)
			}
		})
	}
}

var errRollback = errors.New("rolled back on purpose")

func columnType(column string) string {
	switch column {
	case "weight_lbs", "case_length_in", "case_width_in", "case_height_in":
		return "double precision"
	}
	return "numeric"
}
