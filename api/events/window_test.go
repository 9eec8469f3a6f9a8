package events_test

import (
	"net/url"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
)

// TestEventDateWindow: GET /events (and /jobs) with start and/or end lists
// exactly the events whose [start_date, end_date) overlaps the window,
// half-open on both sides, across pages, and never another
// organization's.
func TestEventDateWindow(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	ids := map[string]string{}
	for _, e := range []struct{ name, start, end string }{
		{"before", "2026-06-01T00:00:00Z", "2026-06-05T00:00:00Z"},       // ends where the window starts
		{"into", "2026-06-04T00:00:00Z", "2026-06-05T00:00:01Z"},         // ends a second into it
		{"inside", "2026-06-06T10:00:00Z", "2026-06-06T23:00:00Z"},       // wholly inside
		{"across", "2026-05-01T00:00:00Z", "2026-07-01T00:00:00Z"},       // spans it
		{"tail", "2026-06-11T23:59:59Z", "2026-06-13T00:00:00Z"},         // starts a second before its end
		{"after", "2026-06-12T00:00:00Z", "2026-06-14T00:00:00Z"},        // starts where it ends
		{"later", "2026-09-01T00:00:00Z", "2026-09-02T00:00:00Z"},        // far after
		{"micro", "2026-06-12T00:00:00.000001Z", "2026-06-13T00:00:00Z"}, // a microsecond after its end
	} {
		ids[e.name] = newEvent(t, a, map[string]any{"name": e.name, "start_date": e.start, "end_date": e.end})["id"].(string)
	}
	// B's event in every window is never listed to A.
	newEvent(t, b, map[string]any{"name": "foreign", "start_date": "2026-05-01T00:00:00Z", "end_date": "2026-12-01T00:00:00Z"})

	for _, tc := range []struct {
		name, query string
		want        []string // in creation order
	}{
		{"a week", "start=2026-06-05T00:00:00Z&end=2026-06-12T00:00:00Z", []string{"into", "inside", "across", "tail"}},
		{"the same week in another offset", "start=2026-06-05T02:00:00%2B02:00&end=2026-06-11T20:00:00-04:00", []string{"into", "inside", "across", "tail"}},
		{"start alone: ending after it", "start=2026-06-12T00:00:00Z", []string{"across", "tail", "after", "later", "micro"}},
		{"end alone: starting before it", "end=2026-06-04T00:00:01Z", []string{"before", "into", "across"}},
		{"a fraction past the microsecond: end rounds up", "start=2026-06-11T00:00:00Z&end=2026-06-12T00:00:00.0000001Z", []string{"across", "tail", "after"}},
		{"a fraction past the microsecond: start rounds down", "start=2026-06-05T00:00:00.0000009Z&end=2026-06-05T00:00:00.5Z", []string{"into", "across"}},
		{"a window without events", "start=2027-01-01T00:00:00Z&end=2027-02-01T00:00:00Z", nil},
		{"with a status", "status=inquiry&start=2026-06-06T00:00:00Z&end=2026-06-07T00:00:00Z", []string{"inside", "across"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []string
			for _, n := range tc.want {
				want = append(want, ids[n])
			}
			for _, p := range []string{path, "/api/v2/jobs"} {
				crudtest.AssertExactlyOnce(t, crudtest.Walk(t, a, p+"?"+tc.query, 2, nil), want)
			}
		})
	}

	t.Run("bad windows", func(t *testing.T) {
		week := path + "?start=2026-06-05T00:00:00Z&end=2026-06-12T00:00:00Z"
		cursor := crudtest.Cursor(t, a, week)
		other := crudtest.Cursor(t, a, path+"?start=2026-06-05T00:00:00Z&end=2026-06-12T00:00:01Z")
		cases := []crudtest.Case{}
		for _, c := range []struct{ name, query, field string }{
			{"start not a date-time", "start=tomorrow", "start"},
			{"start a date only", "start=2026-06-05", "start"},
			{"start empty", "start=", "start"},
			{"end empty", "end=", "end"},
			{"end year 10000", "end=10000-01-01T00:00:00Z", "end"},
			{"end before start", "start=2026-06-12T00:00:00Z&end=2026-06-05T00:00:00Z", "end"},
			{"end equals start", "start=2026-06-12T00:00:00Z&end=2026-06-12T00:00:00Z", "end"},
			{"end before start within a microsecond", "start=2026-06-12T00:00:00.0000009Z&end=2026-06-12T00:00:00.0000001Z", "end"},
			{"end after start within a microsecond", "start=2026-06-12T00:00:00.0000001Z&end=2026-06-12T00:00:00.0000009Z", "end"},
			{"an unencoded + in the offset", "start=2026-06-05T00:00:00+02:00", "start"},
			{"a cursor of another window", "start=2026-06-05T00:00:00Z&end=2026-06-12T00:00:00Z&cursor=" + url.QueryEscape(other), "cursor"},
			{"a cursor of the window without it", "cursor=" + url.QueryEscape(cursor), "cursor"},
		} {
			for _, p := range []string{path, "/api/v2/jobs"} {
				cases = append(cases, crudtest.Case{Name: c.name + " " + p, Method: "GET", Path: p + "?" + c.query,
					Status: 422, Code: "validation_error", Field: c.field})
			}
		}
		crudtest.Rejects(t, env, a, "events", cases)
		// The same window spelt otherwise keeps the cursor.
		if r := a.Get(path + "?start=2026-06-05T02:00:00%2B02:00&end=2026-06-12T00:00:00.000000Z&limit=1&cursor=" + url.QueryEscape(cursor)); r.Status != 200 {
			t.Errorf("the week spelt in another offset refused its cursor: %d %s", r.Status, r.Body)
		}
	})
}
