package client

import (
	"cmp"
	"context"
	"errors"
	"iter"
	"strings"
	"time"
)

// ChangeTypes is the value of the type filter of GET /changes
// (ListChangesParams.Type) naming types: the change types comma-joined, as
// the parameter takes them. Name quote.approved beside quote.updated: an
// approval is its own type, so a filter of quote.updated alone misses it.
// No types is nil: no filter, every type the key may read, which `type=`
// would mean too, but said plainly.
func ChangeTypes(types ...ChangeType) *string {
	if len(types) == 0 {
		return nil
	}
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = string(t)
	}
	joined := strings.Join(names, ",")
	return &joined
}

// Feed follows the change feed (GET /changes, docs/changes.md): it yields
// every committed change once, oldest first, and keeps polling once it has
// caught up. Save its cursor in OnCursor; a new Feed started from it
// continues where this one stopped. The cursor moves a page at a time: a
// Feed stopped in the middle of a page resumes at that page's start, so
// handle changes idempotently (by their id).
type Feed struct {
	api    *API
	params ListChangesParams
	cursor string
	// Every is the pause between polls once the feed has caught up
	// (default 1 s; zero or less is the default too, so a feed never
	// polls without a pause).
	Every time.Duration
	// OnCursor, when set, is called with the feed's cursor each time it
	// moves on with every change before it handled: after the loop body
	// returned for the last change of a page, after a page without changes
	// that moved on (changes the feed does not get), and after the first
	// poll of a feed started at the head (From ChangesFromNow), before any
	// change came. Saving the cursor there is what makes a restarted Feed
	// miss nothing: one saved only beside a change never holds the head a
	// feed from now started at, so a restart before its first change asked
	// for a new head and skipped what was written meanwhile. It runs on the
	// iterating goroutine, between polls.
	OnCursor func(cursor string)
}

// NewFeed starts a feed at cursor ("" for the oldest change kept, or for the
// head when params.From is ChangesFromNow); params may narrow it (Type) or
// size its pages (Limit), its Cursor is ignored.
func (a *API) NewFeed(cursor string, params *ListChangesParams) *Feed {
	f := &Feed{api: a, cursor: cursor, Every: time.Second}
	if params != nil {
		f.params = *params
		f.params.Cursor = nil // the feed's own cursor is the one sent
	}
	return f
}

// FeedHead returns the cursor of the feed's head (GET /changes?from=now): a
// Feed started from it yields every change committed after this call, never
// missing one, and those committed since the oldest write transaction then
// running on the server began (usually milliseconds before). Ask for it
// before a full read of the records you copy, then follow the feed from it
// (docs/changes.md, "Starting from now"). params may narrow it (Type, which
// the cursor is bound to); its Cursor and From are ignored.
func (a *API) FeedHead(ctx context.Context, params *ListChangesParams) (string, error) {
	var p ListChangesParams
	if params != nil {
		p = *params
	}
	from := ChangesFromNow
	p.Cursor, p.From = nil, &from
	_, page, err := decodePage[Change](ctx, a.Raw.ListChanges, &p, nil)
	switch {
	case err != nil:
		return "", err
	case page.NextCursor == nil:
		return "", errors.New("eventapi: the feed's head came without a next_cursor")
	}
	return *page.NextCursor, nil
}

// Cursor is where the feed stands: after a page once the loop body
// returned for its last change, else at the start of the page being
// yielded, so a loop that broke out of a page, on its last change too,
// gets that page again from the same Feed or one started from Cursor
// (until 2.11.3 a break on a page's last change moved past it, and a change
// whose handling failed there was not yielded again); after a page without
// changes, where that page ended. OnCursor is told each move.
func (f *Feed) Cursor() string { return f.cursor }

// Changes yields the feed's changes until ctx ends or a request fails; the
// error is yielded last, with a zero Change (ctx's end yields ctx.Err()).
func (f *Feed) Changes(ctx context.Context) iter.Seq2[Change, error] {
	return func(yield func(Change, error) bool) {
		for {
			params := f.params
			var cursor *string
			if f.cursor != "" {
				c := f.cursor
				cursor = &c
				// from=now places a feed without a cursor at the head;
				// beside a cursor it is refused.
				params.From = nil
			}
			page, more, next, err := changePage(ctx, f.api.Raw, &params, cursor)
			was := f.cursor
			for i, ch := range page {
				if !yield(ch, nil) {
					return // broken out of: the page is yielded again
				}
				if i == len(page)-1 && next != nil {
					f.cursor = *next // the page is handed out and handled in full
				}
			}
			if err != nil {
				// After the page's changes, when it came: a page that
				// says more follow but gives no cursor ends the feed
				// (errNoNextCursor) rather than being read again and
				// again without a pause.
				yield(Change{}, err)
				return
			}
			if len(page) == 0 && next != nil {
				// A page without changes still moves on: the read passed
				// over changes this feed does not get (their types, the
				// key's scopes), up to 10,000 at a time (docs/changes.md,
				// "Pages"); polling from the old cursor would pass over
				// them again, and with has_more set it never got past them.
				f.cursor = *next
			}
			if f.cursor != was && f.OnCursor != nil {
				f.OnCursor(f.cursor)
			}
			if more {
				continue
			}
			select {
			case <-ctx.Done():
				yield(Change{}, ctx.Err())
				return
			case <-time.After(cmp.Or(max(f.Every, 0), time.Second)):
			}
		}
	}
}

// changePage fetches one page of the feed, which keeps next_cursor on its
// last page.
func changePage(ctx context.Context, raw *Client, params *ListChangesParams, cursor *string) ([]Change, bool, *string, error) {
	page, p, err := decodePage[Change](ctx, raw.ListChanges, params, cursor)
	switch {
	case err != nil:
		return nil, false, nil, err
	case p.HasMore && p.NextCursor == nil:
		return page, false, nil, errNoNextCursor
	}
	return page, p.HasMore, p.NextCursor, nil
}
