package bookingtest

import (
	"bytes"
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Overdue writes n checked-out reservations of equipment, in one
// statement, all ended on May 1 2026 (before a test's now): two by two on
// the same minute, so that their order falls back to the id, the
// later-written ending first. It returns their ids, longest overdue first
// (end_date, then the id in PostgreSQL's uuid order, which is bytewise), as
// an answer's JSON lists them, and the units they hold.
func (r *Rows) Overdue(equipment uuid.UUID, n int) (ids []any, quantity int) {
	r.T.Helper()
	var rows []overdueRow
	if err := r.DB.NewRaw(`
		INSERT INTO equipment_reservations (organization_id, equipment_id, start_date, end_date, quantity, reservation_status)
		SELECT ?, ?, timestamptz '2026-04-01T08:00:00Z', timestamptz '2026-05-01T08:00:00Z' + (? - g) / 2 * interval '1 minute', 1 + g % 3, 'checked_out'
		FROM generate_series(1, ?) g
		RETURNING id, end_date, quantity`, r.Org, equipment, n, n).Scan(context.Background(), &rows); err != nil {
		r.T.Fatalf("insert overdue reservations: %v", err)
	}
	slices.SortFunc(rows, func(x, y overdueRow) int {
		if c := x.End.Compare(y.End); c != 0 {
			return c
		}
		return bytes.Compare(x.ID[:], y.ID[:])
	})
	ids = make([]any, len(rows))
	for i, row := range rows {
		ids[i], quantity = row.ID.String(), quantity+row.Quantity
	}
	return ids, quantity
}

// overdueRow is a reservation Overdue wrote.
type overdueRow struct {
	ID       uuid.UUID `bun:"id"`
	End      time.Time `bun:"end_date"`
	Quantity int       `bun:"quantity"`
}
