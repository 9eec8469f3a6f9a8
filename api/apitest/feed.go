package apitest

import "net/url"

// ChangesAfter follows o's change feed (GET /api/v2/changes) from cursor
// ("": the start of what the feed keeps) until a page says no more
// follow, and returns every change it lists, oldest first. What is not yet
// visible is not listed: a test that waits for a change polls.
func (o *Org) ChangesAfter(cursor string) []map[string]any {
	o.env.T.Helper()
	out, _ := o.FollowChanges(cursor)
	return out
}

// FollowChanges is ChangesAfter that also returns the cursor to go on
// from: the last page's next_cursor, or cursor when the feed gave none. A
// test that polls for a change goes on from it, one request per poll,
// instead of reading the whole feed again each time: while a transaction
// held open elsewhere on the server holds every feed back, rereading spent
// the organization's rate limit.
func (o *Org) FollowChanges(cursor string) (changes []map[string]any, next string) {
	o.env.T.Helper()
	next = cursor
	for {
		q := "/api/v2/changes?limit=100"
		if next != "" {
			q += "&cursor=" + url.QueryEscape(next)
		}
		res := o.Get(q)
		if res.Status != 200 {
			o.env.T.Fatalf("GET %s: %d %s", q, res.Status, res.Body)
		}
		changes = append(changes, res.List()...)
		pg, _ := res.JSON()["pagination"].(map[string]any)
		if c, _ := pg["next_cursor"].(string); c != "" {
			next = c
		}
		if more, _ := pg["has_more"].(bool); !more {
			return changes, next
		}
	}
}
