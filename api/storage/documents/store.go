package documents

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/money"
	"github.com/eventapi/eventapi/tenancy"
)

// Doc is implemented by the quote and invoice models (on the pointer).
type Doc[T any] interface {
	*T
	// DocID is the document's id.
	DocID() uuid.UUID
	// SetLines attaches the document's line items.
	SetLines(lines []Line)
}

// Kind describes one document resource to the shared store.
type Kind struct {
	// Name names the resource in errors ("quote").
	Name    string
	Lines   Table
	Numbers Numbering
}

// Write is a decoded create or patch body.
type Write struct {
	// Changes are the column assignments from the body.
	Changes storage.Changes
	// Refs are the records the body names (client, event), checked against
	// the organization.
	Refs []related.Ref
	// Lines, when set, replace the whole set of line items.
	Lines *[]Line
	// Number is the document number the body supplies ("" for none).
	Number string
	// Status is the status the body sets ("" for none).
	Status string
}

// Hook runs inside the write transaction once the document and its line
// items are stored (quotes create their pick list in it).
type Hook[T any] func(ctx context.Context, tx bun.IDB, doc *T) error

// Get loads one document of org with its line items, both in one snapshot
// (a read-only REPEATABLE READ transaction): the total is stored on the
// document and the lines in their own table, and a write that replaced the
// lines between two statements of READ COMMITTED would pair the old total
// with the new lines. Inside a caller's transaction the two run as it
// does.
func Get[T any, PT Doc[T]](ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, k Kind) (*T, error) {
	var d *T
	err := database.RunInSnapshot(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if d, err = storage.Get[T](ctx, tx, org, id, k.Name); err != nil {
			return err
		}
		return attachLines[T, PT](ctx, tx, org, k, d)
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Create inserts a document into org in one transaction: references and
// line equipment checked, a supplied number checked free or else the next
// number of the sequence taken, the lines stored and the exact total
// computed, then after runs.
func Create[T any, PT Doc[T]](ctx context.Context, db bun.IDB, t tenancy.Tenant, k Kind, w Write, after Hook[T]) (*T, error) {
	var out *T
	err := database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		lines := []Line{}
		if w.Lines != nil {
			lines = *w.Lines
		}
		ch, err := prepare(ctx, tx, t.Org, uuid.Nil, k, w, lines)
		if err != nil {
			return err
		}
		ch.Set("total_amount", mustTotal(lines))
		if w.Number == "" {
			number, err := Next(ctx, tx, t.Org, k.Numbers)
			if err != nil {
				return err
			}
			ch.Set(k.Numbers.column, number)
		}
		if out, err = storage.Create[T](ctx, tx, t, ch); err != nil {
			return err
		}
		stored, err := Replace(ctx, tx, k.Lines, t.Org, PT(out).DocID(), lines)
		if err != nil {
			return err
		}
		PT(out).SetLines(stored)
		return runHook(ctx, tx, after, out)
	})
	return out, err
}

// Update applies w to the document id of org in one transaction. Lines,
// when given, replace the whole set and the total is recomputed.
func Update[T any, PT Doc[T]](ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, k Kind, w Write, after Hook[T]) (*T, error) {
	var out *T
	err := database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		if _, err := storage.Get[T](ctx, tx, org, id, k.Name, func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.For("NO KEY UPDATE")
		}); err != nil {
			return err
		}
		var lines []Line
		if w.Lines != nil {
			lines = *w.Lines
		}
		ch, err := prepare(ctx, tx, org, id, k, w, lines)
		if err != nil {
			return err
		}
		if w.Lines != nil {
			// New line items (each with a new id) are a change of the
			// document even when its own columns stay as they are.
			ch.Set("total_amount", mustTotal(lines))
			ch.Touch()
		}
		if out, err = storage.Update[T](ctx, tx, org, id, k.Name, ch); err != nil {
			return err
		}
		if w.Lines == nil {
			if err := attachLines[T, PT](ctx, tx, org, k, out); err != nil {
				return err
			}
		} else {
			stored, err := Replace(ctx, tx, k.Lines, org, id, lines)
			if err != nil {
				return err
			}
			PT(out).SetLines(stored)
		}
		return runHook(ctx, tx, after, out)
	})
	return out, err
}

// prepare runs the checks of a write (computing each line's total) and
// returns its column assignments.
func prepare(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, self uuid.UUID, k Kind, w Write, lines []Line) (storage.Changes, error) {
	// Every bad reference is named at once: the document's own and its
	// lines' equipment.
	var checks errs.Findings
	checks.Run(func() error { return related.Check(ctx, tx, org, w.Refs...) })
	checks.Run(func() error { return ResolveEquipment(ctx, tx, org, lines) })
	if err := checks.Err(); err != nil {
		return storage.Changes{}, err
	}
	for i := range lines {
		lines[i].LineTotal = lines[i].UnitPrice.Mul(lines[i].Quantity)
		if lines[i].LineTotal > MaxTotal {
			return storage.Changes{}, errs.InvalidField(fmt.Sprintf("%s[%d].unit_price", Field, i), LineTotalIssue)
		}
	}
	if _, err := Total(lines); err != nil {
		return storage.Changes{}, err
	}
	if w.Number != "" {
		if err := CheckFree(ctx, tx, org, k.Numbers, w.Number, self); err != nil {
			return storage.Changes{}, err
		}
	}
	return w.Changes, nil
}

// mustTotal is Total for lines prepare has accepted.
func mustTotal(lines []Line) money.Amount {
	t, _ := Total(lines)
	return t
}

func runHook[T any](ctx context.Context, tx bun.IDB, after Hook[T], doc *T) error {
	if after == nil {
		return nil
	}
	return after(ctx, tx, doc)
}

func attachLines[T any, PT Doc[T]](ctx context.Context, db bun.IDB, org tenancy.OrganizationID, k Kind, d *T) error {
	id := PT(d).DocID()
	lines, err := Load(ctx, db, k.Lines, org, id)
	if err != nil {
		return err
	}
	PT(d).SetLines(lines[id])
	return nil
}
