package apitest

import "net/url"

// ChangesAfter follows o's change feed (GET /api/v2/changes) from cursor
// ("": the start of what the feed keeps) until a page says no more
// follow, and returns every change it lists, oldest first. What is not yet
// visible is not listed: a test that waits for a change polls.
func (o *Org) ChangesAfter(cursor string) []map[string]any {
	o.env.T.Helper()
	var out []map[string]any
	for {
		q := "/api/v2/changes?limit=100"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		res := o.Get(q)
		if res.Status != 200 {
			o.env.T.Fatalf("GET %s: %d %s", q, res.Status, res.Body)
		}
		out = append(out, res.List()...)
		pg, _ := res.JSON()["pagination"].(map[string]any)
		next, _ := pg["next_cursor"].(string)
		if more, _ := pg["has_more"].(bool); !more || next == "" {
			return out
		}
		cursor = next
	}
}
