package storage

import (
	"strings"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/tenancy"
)

// PageRequest is a parsed limit and optional cursor.
type PageRequest struct {
	Limit int
	After *Cursor
	// Scope binds cursors to one organization and list.
	Scope string
}

// NextCursor returns the opaque cursor after last, or nil when !hasMore.
func (p PageRequest) NextCursor(cs *Cursors, hasMore bool, last Cursor) *string {
	if !hasMore {
		return nil
	}
	s := cs.Encode(p.Scope, last)
	return &s
}

// Row is a model that can be paged: it reports its (created_at, id).
type Row interface{ PageKey() Cursor }

// Page is one page of a list.
type Page[T any] struct {
	Items []T
	// HasMore is true when records follow the last item.
	HasMore bool
	// Bytes is the page's size as read: the length of every value of its
	// rows (List; the raw bytes PostgreSQL sent on the pgx path, the
	// driver's values on database/sql's, the records' texts where bun
	// scanned them), a handler adding what its expansions inline
	// (ExpandedBytes). The answer renders each byte of text as up to six
	// ('<' is written \u003c), so it tells a page to be encoded under the
	// large-read bound (rest.ListPage; docs/architecture.md, "Memory").
	// 0 when not measured.
	Bytes int
}

// Next returns the opaque cursor after the page, or nil on the last page.
func Next[T any, PT interface {
	*T
	Row
}](page Page[T], p PageRequest, cs *Cursors) *string {
	if !page.HasMore || len(page.Items) == 0 {
		return nil
	}
	return p.NextCursor(cs, true, PT(&page.Items[len(page.Items)-1]).PageKey())
}

// IDParam is an optional uuid filter as a ListScope parameter: its
// canonical text, so that a cursor follows the filter's value, not its
// spelling (upper case, braces); "" when the filter is absent.
func IDParam(id *uuid.UUID) string {
	if id == nil {
		return ""
	}
	return id.String()
}

// ListScope is the cursor scope of one list of org: the list's name, the
// organization and every parameter that changes which rows the list holds
// (search text, filters), joined by ":". A cursor signed for one scope is
// refused by any other, so it cannot be replayed against another list,
// filter or tenant.
func ListScope(list string, org tenancy.OrganizationID, params ...string) string {
	var b strings.Builder
	b.WriteString(list)
	b.WriteByte(':')
	b.WriteString(org.String())
	for _, p := range params {
		b.WriteByte(':')
		b.WriteString(p)
	}
	return b.String()
}
