package picklists

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// MaxListText is the most text the items of one pick list hold, counted
// as an answer carries it (storage.JSONTextSize: escaped, so a < counts six
// bytes): their notes, custom descriptions and serial numbers. MaxItems
// bounds how many items a list holds, not how large they are: within each
// field's own limits a list of 1000 items can be a 235 MB answer, and
// one read of it takes a pod from 38 MB to 1 GB (docs/architecture.md,
// "Memory"); counted as stored, a list of < and & within the bound would
// still answer 12.6 MB. With it a list's detail stays under about 4.5 MB, and
// a page of MaxExpandedLists lists with their items about 23. A list made
// from a quote fits whatever its lines say: 500 lines of at most 1000
// characters take at most 3,000,000 bytes escaped.
const MaxListText = 3 << 20

// textFields are the item fields whose text counts against MaxListText,
// in the order textSizes gives their sizes.
var textFields = [...]string{"notes", "serial_numbers", "custom_description"}

// textSizes is the text of each of it's textFields as an answer carries it:
// escaped, and a serial number with its quotes and comma.
func textSizes(it *Item) (sizes [len(textFields)]int) {
	if it.Notes != nil {
		sizes[0] = storage.JSONTextSize(*it.Notes)
	}
	for _, s := range it.SerialNumbers {
		sizes[1] += storage.JSONTextSize(s) + 3
	}
	if it.CustomDescription != nil {
		sizes[2] = storage.JSONTextSize(*it.CustomDescription)
	}
	return sizes
}

// textBytes is the text of it that counts against MaxListText.
func textBytes(it *Item) int {
	n := 0
	for _, size := range textSizes(it) {
		n += size
	}
	return n
}

// itemTextSQL is textBytes of a pick_list_items row, in SQL.
var itemTextSQL = storage.JSONTextSizeSQL("notes") + " + " + storage.JSONTextSizeSQL("custom_description") +
	" + coalesce((SELECT sum(" + storage.JSONTextSizeSQL("s") + " + 3) FROM unnest(serial_numbers) AS s), 0)"

// grownText names the field of next whose text grew the most from cur
// (nil on create: the one holding the most), where a refusal of its write
// points.
func grownText(cur, next *Item) string {
	var was [len(textFields)]int
	if cur != nil {
		was = textSizes(cur)
	}
	will := textSizes(next)
	best := 0
	for i := range textFields {
		if will[i]-was[i] > will[best]-was[best] {
			best = i
		}
	}
	return textFields[best]
}

// checkText refuses next (cur is the stored item on PATCH, nil on create)
// when it would take its list's items past MaxListText: a 422 on the field
// whose text grew the most (grownText). A write that does not add text is let through,
// so a list that holds more (written before the bound) still takes its
// stage moves. The list is locked (lockList, lockListOf), so two writes
// count one after the other.
func checkText(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, cur, next *Item) error {
	added := textBytes(next)
	except := uuid.Nil
	if cur != nil {
		added -= textBytes(cur)
		except = cur.ID
	}
	if added <= 0 {
		return nil
	}
	var others int
	err := tx.NewRaw("SELECT coalesce(sum("+itemTextSQL+"), 0) FROM pick_list_items WHERE organization_id = ? AND pick_list_id = ? AND id <> ?",
		org, next.PickListID, except).Scan(ctx, &others)
	if err != nil {
		return database.Error(err)
	}
	if total := others + textBytes(next); total > MaxListText {
		return errs.InvalidField(grownText(cur, next), fmt.Sprintf(
			"the items of a pick list hold at most %d bytes of text as answers carry it (notes, custom descriptions and serial numbers, JSON-escaped), and this item would bring the list's to %d: shorten it, or start another list",
			MaxListText, total))
	}
	return nil
}
