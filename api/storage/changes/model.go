package changes

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage"
)

// Change is one committed change of one record.
type Change struct {
	ID         uuid.UUID `bun:"id,type:uuid" json:"id"`
	Type       string    `bun:"type" json:"type"`
	ObjectType string    `bun:"object_type" json:"object_type"`
	ObjectID   uuid.UUID `bun:"object_id,type:uuid" json:"object_id"`
	// Data is the stored row until Render replaces it with the record as GET
	// renders it (for a deletion, its last state).
	Data      json.RawMessage `bun:"data,type:jsonb" json:"data"`
	CreatedAt time.Time       `bun:"created_at" json:"created_at"`

	// Position and Seq order the feed (docs/changes.md).
	Position int64 `bun:"position" json:"-"`
	Seq      int64 `bun:"seq" json:"-"`

	// Size is the data's size as a page answers it (renderedSize), Upto
	// the page's bytes up to and including this change, Fetched how many
	// changes the query read before the byte bound cut the page (List).
	Size    int64 `bun:"size,scanonly" json:"-"`
	Upto    int64 `bun:"upto,scanonly" json:"-"`
	Fetched int   `bun:"fetched,scanonly" json:"-"`
	// Moved is whether the retention mark, read with the page, is after
	// the place the read started from (List).
	Moved bool `bun:"moved,scanonly" json:"-"`
}

// PageKey is the change's place in the feed, carried by the page cursor: the
// position (an xid8, below 2^63) in the cursor's time slot, seq in the first
// eight bytes of its id slot.
func (c *Change) PageKey() storage.Cursor { return keyCursor(c.Position, c.Seq) }

// Place is the cursor of the feed's place (position, seq), as a stored
// cursor (a webhook endpoint's) names it: a read after it lists the changes
// that follow.
func Place(position, seq int64) storage.Cursor { return keyCursor(position, seq) }

func keyCursor(position, seq int64) storage.Cursor {
	var id uuid.UUID
	for i := 0; i < 8; i++ {
		id[i] = byte(uint64(seq) >> (56 - 8*i))
	}
	return storage.Cursor{CreatedAt: time.UnixMicro(position).UTC(), ID: id}
}

func fromCursor(c storage.Cursor) (position, seq int64) {
	var s uint64
	for i := 0; i < 8; i++ {
		s = s<<8 | uint64(c.ID[i])
	}
	return c.CreatedAt.UnixMicro(), int64(s)
}
