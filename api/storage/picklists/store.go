package picklists

import (
	"context"
	"fmt"
	"maps"
	"runtime/debug"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"golang.org/x/sync/errgroup"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// Get loads one pick list of org (without items).
func Get(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) (*PickList, error) {
	return storage.Get[PickList](ctx, db, org, id, Kind)
}

// GetExpanded loads one pick list of org with the expansions x, as Get
// and then Expand. The pick list is read first and its items after it, so
// the items are never older than the pick list's updated_at, which an item
// write moves: read at once, on two connections, the two reads were two
// snapshots, and an item write committed between them showed in updated_at
// but not in the items, for good to a client polling on updated_at. On a
// pool, with items, the items (and their equipment, loadItems) are read
// beside the event, which needs the pick list's event_id anyway
// (docs/architecture.md, "Expansions"); both reads run to their end
// either way, so an error of one never cancels a statement of the other,
// which would cost its connection.
func GetExpanded(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, x Expansion) (*PickList, error) {
	pl, err := Get(ctx, db, org, id)
	if err != nil {
		return nil, err
	}
	one := []PickList{*pl}
	pool, isPool := db.(*bun.DB)
	if !isPool || !x.Items || !x.Event {
		if err := Expand(ctx, db, org, one, x); err != nil {
			return nil, err
		}
		return &one[0], nil
	}
	var items []Item
	var itemsErr error
	var panicked *goroutinePanic
	read := make(chan struct{})
	go func() {
		defer close(read)
		// A panic of the items read is raised again on the request's
		// goroutine, where the recoverer answers it with a 500; left on
		// this goroutine it would end the process.
		defer func() {
			if p := recover(); p != nil {
				panicked = &goroutinePanic{value: p, stack: debug.Stack()}
			}
		}()
		items, itemsErr = loadItems(ctx, pool, org, []uuid.UUID{id}, x)
	}()
	err = Expand(ctx, pool, org, one, Expansion{Event: true})
	<-read
	if panicked != nil {
		panic(panicked)
	}
	if err != nil {
		return nil, err
	}
	if itemsErr != nil {
		return nil, itemsErr
	}
	groupItems(one, items)
	return &one[0], nil
}

// ListFilter narrows the pick list list.
type ListFilter struct {
	EventID  *uuid.UUID
	Status   string
	Archived bool
}

// List returns one page of org's pick lists (archived or not, per f).
func List(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest, f ListFilter) (storage.Page[PickList], error) {
	filters := []storage.Cond{storage.Where("?TableAlias.archived = ?", f.Archived)}
	if f.EventID != nil {
		filters = append(filters, storage.Where("?TableAlias.event_id = ?", *f.EventID))
	}
	if f.Status != "" {
		filters = append(filters, storage.Where("?TableAlias.status = ?", f.Status))
	}
	return storage.List[PickList](ctx, db, org, p, filters...)
}

// Expansion says what to inline into pick lists.
type Expansion struct {
	Event, Items, Equipment, Category bool
}

// Expand inlines the requested relations into lists: one query for their
// events, one for all their items, one for the items' equipment and one for
// its categories, however many lists there are.
func Expand(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, lists []PickList, x Expansion) error {
	if x.Event {
		ev, err := related.Events(ctx, db, org, related.IDs(lists, func(p *PickList) *uuid.UUID { return p.EventID }))
		if err != nil {
			return err
		}
		for i := range lists {
			lists[i].Event = related.Pick(ev, lists[i].EventID)
		}
	}
	if !x.Items || len(lists) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(lists))
	for i := range lists {
		ids[i] = lists[i].ID
	}
	items, err := loadItems(ctx, db, org, ids, x)
	if err != nil {
		return err
	}
	groupItems(lists, items)
	return nil
}

// itemOrder is the order of a list's items.
const itemOrder = "?TableAlias.created_at ASC, ?TableAlias.id ASC"

// itemsEquipment links pick lists to the equipment of their items.
var itemsEquipment = storage.Through{Table: "pick_list_items", Column: "equipment_id", Key: "pick_list_id"}

// loadItems loads the items of the pick lists ids, with their equipment
// when x asks for it. On a pool the equipment is read beside the items, on a
// second connection and through the items' table, so the two large reads of
// a manifest overlap instead of the second waiting for the first; in a
// transaction they run one after the other.
func loadItems(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, ids []uuid.UUID, x Expansion) ([]Item, error) {
	pool, isPool := db.(*bun.DB)
	if !x.Equipment || !isPool {
		items, err := storage.In[Item](ctx, db, org, "pick_list_id", ids, itemOrder, ItemKind)
		if err != nil || !x.Equipment {
			return items, err
		}
		return items, expandEquipment(ctx, db, org, items, x.Category)
	}
	var items []Item
	var eq map[uuid.UUID]*related.Equipment
	// A plain group: an error of one read does not cancel the other, whose
	// cancelled statement would cost its connection (GetExpanded).
	var g errgroup.Group
	g.Go(func() (err error) {
		items, err = storage.In[Item](ctx, pool, org, "pick_list_id", ids, itemOrder, ItemKind)
		return err
	})
	g.Go(func() (err error) {
		eq, err = related.EquipmentThrough(ctx, pool, org, itemsEquipment, ids, x.Category)
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// An item added between the two reads may name equipment the other read
	// did not see: those few are read by id (a fifth query, only then).
	missing := related.IDs(items, func(it *Item) *uuid.UUID {
		if it.EquipmentID != nil && eq[*it.EquipmentID] == nil {
			return it.EquipmentID
		}
		return nil
	})
	if len(missing) > 0 {
		more, err := related.EquipmentByID(ctx, db, org, missing, x.Category)
		if err != nil {
			return nil, err
		}
		maps.Copy(eq, more)
	}
	attachEquipment(items, eq)
	return items, nil
}

// groupItems gives each list its items, in the order of items. One list
// takes the slice as it is; several get slices of their exact size, so a
// large manifest's items are neither copied nor regrown.
func groupItems(lists []PickList, items []Item) {
	if len(lists) == 1 {
		if items == nil {
			items = []Item{}
		}
		lists[0].Items = &items
		return
	}
	counts := make(map[uuid.UUID]int, len(lists))
	for i := range items {
		counts[items[i].PickListID]++
	}
	byList := make(map[uuid.UUID][]Item, len(counts))
	for i := range items {
		id := items[i].PickListID
		its, ok := byList[id]
		if !ok {
			its = make([]Item, 0, counts[id])
		}
		byList[id] = append(its, items[i])
	}
	for i := range lists {
		its := byList[lists[i].ID]
		if its == nil {
			its = []Item{}
		}
		lists[i].Items = &its
	}
}

// expandEquipment inlines each item's equipment (and its category).
func expandEquipment(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, items []Item, withCategory bool) error {
	eq, err := related.EquipmentByID(ctx, db, org, related.IDs(items, func(it *Item) *uuid.UUID { return it.EquipmentID }), withCategory)
	if err != nil {
		return err
	}
	attachEquipment(items, eq)
	return nil
}

// attachEquipment inlines each item's equipment from eq.
func attachEquipment(items []Item, eq map[uuid.UUID]*related.Equipment) {
	p := related.NewPicker[related.Equipment](len(items))
	for i := range items {
		items[i].Equipment = p.Pick(eq, items[i].EquipmentID)
	}
}

// Create inserts a draft pick list into org. Its event and quote must be
// org's, and a quote has at most one pick list (409 duplicate_record with
// details.existing_id).
//
// The quote's row is locked FOR NO KEY UPDATE before the check, as the
// quote's approval locks it before making its pick list (documents.Update):
// every creation of one quote's pick list, here or by approval, runs after
// the one before has ended, so the check sees the winner and every loser
// gets the documented 409 with existing_id, never the bare unique
// violation of pick_lists_quote_id_key. The lock is held until the
// outermost transaction ends (the Idempotency-Key middleware's, when db is
// one: RunInTx is then a savepoint).
func Create(ctx context.Context, db bun.IDB, t tenancy.Tenant, ch storage.Changes, eventID, quoteID *uuid.UUID) (*PickList, error) {
	var out *PickList
	err := database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		err := related.Check(ctx, tx, t.Org,
			related.Ref{Field: "event_id", Table: related.TableEvents, ID: eventID},
			related.Ref{Field: "quote_id", Table: related.TableQuotes, ID: quoteID})
		if err != nil {
			return err
		}
		if quoteID != nil {
			status, err := lockQuote(ctx, tx, t.Org, *quoteID)
			if err != nil {
				return err
			}
			if existing, err := ForQuote(ctx, tx, t.Org, *quoteID); err != nil {
				return err
			} else if existing != nil {
				return errs.New(errs.DuplicateRecord, "this quote already has a pick list").
					WithDetails(map[string]any{"field": "quote_id", "existing_id": *existing})
			}
			// A quote's pick list is the one its approval makes, with an
			// item per equipment (docs/decisions.md): one made by hand before the
			// approval would take its place, empty.
			if status != QuoteApproved {
				return errs.InvalidField("quote_id", "must name an approved quote: approving a quote makes its pick list, with its items")
			}
		}
		out, err = storage.Create[PickList](ctx, tx, t, ch)
		return err
	})
	if err != nil {
		return nil, err
	}
	empty := []Item{}
	out.Items = &empty
	return out, nil
}

// QuoteApproved is the quote status whose write makes the quote's pick
// list. It is stated here, where that rule is kept, and is
// quotes.StatusApproved: the quotes package imports this one to make the
// pick list.
const QuoteApproved = "approved"

// lockQuote locks the quote's row of org until the transaction ends and
// returns its status. A quote deleted since it was checked locks nothing
// (status ""); the insert's foreign key would refuse it.
func lockQuote(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, quote uuid.UUID) (string, error) {
	var statuses []string
	err := tx.NewSelect().Table("quotes").Column("status").
		Where("organization_id = ?", org).Where("id = ?", quote).For("NO KEY UPDATE").Scan(ctx, &statuses)
	if err != nil || len(statuses) == 0 {
		return "", database.Error(err)
	}
	return statuses[0], nil
}

// ForQuote returns the id of the pick list of quote, or nil.
func ForQuote(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, quote uuid.UUID) (*uuid.UUID, error) {
	var ids []uuid.UUID
	err := db.NewSelect().Table("pick_lists").Column("id").
		Where("organization_id = ?", org).Where("quote_id = ?", quote).Limit(1).Scan(ctx, &ids)
	if err != nil || len(ids) == 0 {
		return nil, database.Error(err)
	}
	return &ids[0], nil
}

// Update applies ch and a status move (to, "" for none) to the pick list id
// of org. Only the moves of the flow are allowed; the current status again
// is a no-op.
func Update(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, ch storage.Changes, to string) (*PickList, error) {
	var out *PickList
	err := database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		cur, err := storage.Get[PickList](ctx, tx, org, id, Kind, forUpdate)
		if err != nil {
			return err
		}
		if to != "" && to != cur.Status {
			if err := checkStatusMove(cur.Status, to); err != nil {
				return err
			}
			ch.Set("status", to)
		}
		out, err = storage.Update[PickList](ctx, tx, org, id, Kind, ch)
		return err
	})
	return out, err
}

// forUpdate locks the selected row until the transaction ends.
func forUpdate(q *bun.SelectQuery) *bun.SelectQuery { return q.For("NO KEY UPDATE") }

// goroutinePanic is a panic of a helper goroutine, raised again on the
// goroutine that waited for it, with the stack where it happened.
type goroutinePanic struct {
	value any
	stack []byte
}

func (p *goroutinePanic) Error() string {
	return fmt.Sprintf("panic in a helper goroutine: %v\n%s", p.value, p.stack)
}
