package picklists

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// CreateItem adds it to its pick list. The pick list, the equipment and the
// parent item are verified to be org's (the parent on the same pick list)
// before anything is written.
//
// The pick list is locked first (lockList), as every item write locks it
// before any item (lockListOf). The insert's foreign keys take share locks
// on the parent item, and its list's updated_at is moved last: a creation
// that locked the list only then, beside a deletion of its parent that
// locked the list and then wanted the parent, deadlocked.
func CreateItem(ctx context.Context, db bun.IDB, t tenancy.Tenant, it *Item) (*Item, error) {
	var out *Item
	err := database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		if err := lockList(ctx, tx, t.Org, it.PickListID); err != nil {
			return err
		}
		if err := checkItem(ctx, tx, t.Org, nil, it); err != nil {
			return err
		}
		if err := checkRoom(ctx, tx, t.Org, it.PickListID); err != nil {
			return err
		}
		if err := checkText(ctx, tx, t.Org, nil, it); err != nil {
			return err
		}
		var err error
		out, err = storage.Create[Item](ctx, tx, t, itemColumns(nil, it))
		if err != nil {
			return err
		}
		return touchList(ctx, tx, t.Org, out.PickListID)
	})
	return out, err
}

// UpdateItem applies change to the item id of org. Stages only move forward.
func UpdateItem(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, change func(*Item)) (*Item, error) {
	var out *Item
	err := database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		if err := lockListOf(ctx, tx, org, id); err != nil {
			return err
		}
		cur, err := storage.Get[Item](ctx, tx, org, id, ItemKind, forUpdate)
		if err != nil {
			return err
		}
		next := *cur
		change(&next)
		if err := checkStageMove(cur.Stage, next.Stage); err != nil {
			return err
		}
		if err := checkItem(ctx, tx, org, cur, &next); err != nil {
			return err
		}
		if err := checkText(ctx, tx, org, cur, &next); err != nil {
			return err
		}
		cols := itemColumns(cur, &next)
		if cols.Len() == 0 { // nothing changes: neither the item nor its list is written
			out = cur
			return nil
		}
		out, err = storage.Update[Item](ctx, tx, org, id, ItemKind, cols)
		if err != nil {
			return err
		}
		return touchList(ctx, tx, org, out.PickListID)
	})
	return out, err
}

// DeleteItem removes the item id of org; items inside it lose their parent.
// The item is locked (storage.Locked) after its pick list (lockListOf) and
// before its children are cleared, so no write makes another item its child
// between the clearing and its DELETE.
func DeleteItem(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) error {
	return database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		if err := lockListOf(ctx, tx, org, id); err != nil {
			return err
		}
		it, err := storage.Get[Item](ctx, tx, org, id, ItemKind, storage.Locked)
		if err != nil {
			return err
		}
		// The children lose their parent: a change of theirs, which moves
		// their updated_at (and records it in the feed) like any other.
		// The foreign key's ON DELETE SET NULL would leave updated_at as
		// it was, so a client that syncs by updated_at missed it.
		_, err = tx.NewUpdate().Table("pick_list_items").
			Set("parent_item_id = NULL").Set("updated_at = clock_timestamp()").
			Where("organization_id = ?", org).Where("parent_item_id = ?", id).Exec(ctx)
		if err != nil {
			return database.Error(err)
		}
		if err := storage.Delete[Item](ctx, tx, org, id, ItemKind); err != nil {
			return err
		}
		return touchList(ctx, tx, org, it.PickListID)
	})
}

// lockList locks org's pick list id until the transaction ends, the first
// lock of an item's creation (CreateItem). A list that is not org's locks
// nothing: checkItem then answers pick_list_id's validation issue.
func lockList(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, id uuid.UUID) error {
	var lists []uuid.UUID
	err := tx.NewSelect().Table("pick_lists").Column("id").
		Where("organization_id = ?", org).Where("id = ?", id).For("NO KEY UPDATE").Scan(ctx, &lists)
	return database.Error(err)
}

// lockListOf locks the pick list of org's item id, or answers the item's
// 404. A creation (lockList), change or deletion of an item locks its list
// before the item: the list is the first lock of every item write, so that
// two writes of items of one list take their locks in one order. A
// re-parenting that locked its item and then the list, beside a deletion of
// its new parent that locked the parent and then wanted the list (to move
// its updated_at), deadlocked. An item never moves to another list, so the
// list read here stays the item's.
func lockListOf(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, id uuid.UUID) error {
	var lists []uuid.UUID
	err := tx.NewRaw(`SELECT l.id FROM pick_lists l
		WHERE l.organization_id = ? AND l.id = (SELECT pick_list_id FROM pick_list_items WHERE organization_id = ? AND id = ?)
		FOR NO KEY UPDATE OF l`, org, org, id).Scan(ctx, &lists)
	if err != nil {
		return database.Error(err)
	}
	if len(lists) == 0 {
		return errs.NotFoundOf(ItemKind)
	}
	return nil
}

// MaxItems is the most items one pick list holds, so that the largest
// record a request builds is a list of MaxItems items with their equipment
// and categories (docs/architecture.md, "Memory"); nothing bounded it, and
// a list of 300,000 items was a 127 MB answer. A list made from a quote
// (at most 500 lines) stays under it.
const MaxItems = 1000

// checkRoom refuses a new item on org's pick list list when it holds
// MaxItems already: a 422 on pick_list_id. CreateItem has locked the list,
// so two creations count one after the other.
func checkRoom(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, list uuid.UUID) error {
	n, err := tx.NewSelect().Table("pick_list_items").
		Where("organization_id = ?", org).Where("pick_list_id = ?", list).Count(ctx)
	if err != nil {
		return database.Error(err)
	}
	if n >= MaxItems {
		return errs.InvalidField("pick_list_id", fmt.Sprintf("the pick list holds %d items, the most one list holds: start another list", MaxItems))
	}
	return nil
}

// touchList moves the updated_at of a pick list whose items changed, so a
// client polling lists for changes sees item writes too.
func touchList(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, list uuid.UUID) error {
	_, err := tx.NewUpdate().Table("pick_lists").Set("updated_at = clock_timestamp()").
		Where("organization_id = ?", org).Where("id = ?", list).Exec(ctx)
	return database.Error(err)
}

// NothingToPickIssue is the issue, on equipment_id, of an item that names
// neither equipment nor a custom description.
const NothingToPickIssue = "equipment_id or custom_description is required"

// checkItem verifies next (cur is the stored item on PATCH): it names
// equipment or a custom description, and its pick list, equipment and
// parent item are org's; the parent is on the same pick list and is not the
// item itself or inside it.
func checkItem(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, cur, next *Item) error {
	var checks errs.Findings
	if next.EquipmentID == nil && next.CustomDescription == nil {
		checks.Add(errs.InvalidField("equipment_id", NothingToPickIssue))
	}
	var refs []related.Ref
	if cur == nil {
		refs = append(refs, related.Ref{Field: "pick_list_id", Table: related.TablePickLists, ID: &next.PickListID})
	}
	if cur == nil || !storage.Same(cur.EquipmentID, next.EquipmentID) {
		refs = append(refs, related.Ref{Field: "equipment_id", Table: related.TableEquipment, ID: next.EquipmentID})
	}
	checks.Run(func() error { return related.Check(ctx, tx, org, refs...) })
	if next.ParentItemID != nil && (cur == nil || !storage.Same(cur.ParentItemID, next.ParentItemID)) {
		checks.Run(func() error {
			issue, err := parentIssue(ctx, tx, org, next)
			if err == nil && issue != "" {
				err = errs.InvalidField("parent_item_id", issue)
			}
			return err
		})
	}
	return checks.Err()
}

// parentIssue returns why it.ParentItemID cannot contain it, or "".
func parentIssue(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, it *Item) (string, error) {
	var lists []uuid.UUID
	err := tx.NewSelect().Table("pick_list_items").Column("pick_list_id").
		Where("organization_id = ?", org).Where("id = ?", *it.ParentItemID).Scan(ctx, &lists)
	if err != nil {
		return "", database.Error(err)
	}
	switch {
	case len(lists) == 0:
		return related.IssueNotInOrg, nil
	case lists[0] != it.PickListID:
		return "must be an item of the same pick list", nil
	case it.ID == uuid.Nil:
		return "", nil
	}
	// On PATCH, the new parent must not be the item or sit inside it.
	// UpdateItem locked the pick list first (lockListOf), so two
	// re-parentings within one list run one after the other: each then sees
	// the other's committed change, and two items can never become each
	// other's parent. The walk goes up from the new parent to its root
	// however deep the tree is: UNION stops at a row seen before, so it ends
	// even on a loop. (It stopped at 10,000 levels, and a parent deeper than
	// that was taken for one outside the item: a loop could be made.)
	var cycle bool
	err = tx.NewRaw(`WITH RECURSIVE chain (id, parent_item_id) AS (
			SELECT id, parent_item_id FROM pick_list_items WHERE organization_id = ? AND id = ?
			UNION
			SELECT i.id, i.parent_item_id FROM pick_list_items i
			JOIN chain c ON i.id = c.parent_item_id WHERE i.organization_id = ?
		) SELECT EXISTS (SELECT 1 FROM chain WHERE id = ?)`,
		org, *it.ParentItemID, org, it.ID).Scan(ctx, &cycle)
	if err != nil {
		return "", database.Error(err)
	}
	if cycle {
		return "must not be the item itself or an item inside it", nil
	}
	return "", nil
}

// itemColumns returns the assignments that turn cur into next (every
// writable column when cur is nil).
func itemColumns(cur, next *Item) storage.Changes {
	var ch storage.Changes
	all := cur == nil
	if all {
		cur = &Item{}
		ch.Set("pick_list_id", next.PickListID)
	}
	ch.SetIf(all || !storage.Same(cur.EquipmentID, next.EquipmentID), "equipment_id", next.EquipmentID)
	ch.SetIf(all || cur.Quantity != next.Quantity, "quantity", next.Quantity)
	ch.SetIf(all || cur.Stage != next.Stage, "stage", next.Stage)
	ch.SetIf(all || !storage.Same(cur.Notes, next.Notes), "notes", next.Notes)
	ch.SetIf(all || !storage.Same(cur.CustomDescription, next.CustomDescription), "custom_description", next.CustomDescription)
	ch.SetIf(all || !storage.Same(cur.IsContainer, next.IsContainer), "is_container", next.IsContainer)
	ch.SetIf(all || !storage.Same(cur.ContainerID, next.ContainerID), "container_id", next.ContainerID)
	ch.SetIf(all || !storage.Same(cur.IsPackage, next.IsPackage), "is_package", next.IsPackage)
	ch.SetIf(all || !storage.Same(cur.ParentItemID, next.ParentItemID), "parent_item_id", next.ParentItemID)
	if all || (cur.SerialNumbers == nil) != (next.SerialNumbers == nil) || !slices.Equal(cur.SerialNumbers, next.SerialNumbers) {
		var v any // NULL, or a text[]
		if next.SerialNumbers != nil {
			v = pgdialect.Array(next.SerialNumbers)
		}
		ch.Set("serial_numbers", v)
	}
	ch.SetIf(all || !storage.Same(cur.WarehouseID, next.WarehouseID), "warehouse_id", next.WarehouseID)
	return ch
}
