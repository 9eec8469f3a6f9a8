package events

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// Get loads one event of org. Other packages use it to check and inline
// event references.
func Get(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) (*Event, error) {
	return storage.Get[Event](ctx, db, org, id, Kind)
}

// ListFilter narrows the event list.
type ListFilter struct {
	// Status keeps events with this status (empty: all).
	Status string
	// Window keeps events whose dates overlap it (open: all).
	Window storage.DateWindow
}

// List returns one page of org's events.
func List(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest, f ListFilter) (storage.Page[Event], error) {
	var filters []storage.Cond
	if f.Status != "" {
		filters = append(filters, storage.Where("?TableAlias.status = ?", f.Status))
	}
	if f.Window.Given() {
		filters = append(filters, f.Window.Cond())
	}
	return storage.List[Event](ctx, db, org, p, filters...)
}

// Create inserts an event into org from decoded fields. Callers check
// client_id first (related.Check); the composite foreign key still refuses a
// client outside org (422 on client_id).
func Create(ctx context.Context, db bun.IDB, t tenancy.Tenant, ch storage.Changes) (*Event, error) {
	return storage.Create[Event](ctx, db, t, ch)
}

// Update applies f to the event id of org. When f moves only one of the
// dates, the new window is checked against the stored other date under a row
// lock, so a concurrent patch cannot slip an inverted window past the check
// (the table's CHECK constraint is the last line of defence).
func Update(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, f Fields) (*Event, error) {
	if f.Start == nil && f.End == nil {
		return storage.Update[Event](ctx, db, org, id, Kind, f.Changes)
	}
	var out *Event
	err := database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		cur, err := storage.Get[Event](ctx, tx, org, id, Kind, storage.Locked)
		if err != nil {
			return err
		}
		start, end := cur.StartDate, cur.EndDate
		if f.Before != nil {
			*f.Before = Dates{Start: start, End: end}
		}
		if f.Start != nil {
			start = *f.Start
		}
		if f.End != nil {
			end = *f.End
		}
		if err := storage.CheckWindow(start, end); err != nil {
			return err
		}
		out, err = storage.Update[Event](ctx, tx, org, id, Kind, f.Changes)
		return err
	})
	return out, err
}
