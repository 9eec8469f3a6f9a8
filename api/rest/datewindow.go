package rest

import (
	"time"

	"github.com/eventapi/eventapi/api/storage"
)

// dateWindowExample is the example of the window's bad-value issues.
const dateWindowExample = "2026-05-01T08:00:00Z"

// DateWindow reads into q the optional start and end of a list of dated
// records (storage.DateWindow): RFC 3339 date-times read as every
// date-time of the API is (ParseDateTime), either alone or both, end after
// start. A record overlaps the window sent exactly when it overlaps the
// window read: start is rounded down to the microsecond, the precision of
// the stored dates, and end up (DateTimeUpIssue); the order is judged on
// both rounded down (Query.EndAfter). Given empty, a bound is
// a bad value like every structured filter. A bad bound is an issue of q,
// and the window is then open on that side.
func (q *Query) DateWindow() storage.DateWindow {
	var w storage.DateWindow
	for _, p := range []struct {
		name  string
		dst   **time.Time
		parse func(s, example string) (time.Time, string)
	}{{"start", &w.Start, DateTimeIssue}, {"end", &w.End, DateTimeUpIssue}} {
		s, given := q.Raw(p.name)
		if !given {
			continue
		}
		t, issue := p.parse(s, dateWindowExample)
		if issue != "" {
			q.Issue(p.name, QueryDateTimeIssue(s, issue))
			continue
		}
		*p.dst = &t
	}
	if w.Start != nil && w.End != nil && !q.EndAfter(*w.Start) {
		q.Issue("end", "must be after start")
		return storage.DateWindow{}
	}
	return w
}

// EndAfter reports whether a window's end, the query parameter end, is
// after its start (read by DateTimeIssue: rounded down to the microsecond, the
// precision of stored times), judged on the end rounded down too. The end
// a query uses is rounded up (DateTimeUpIssue), and an end rounded up is
// after any start in its microsecond, even one after the end as sent: the
// answer would then be of a one-microsecond window the client never asked
// for. So an end must fall in a later microsecond than start. (The request
// log rounds both of its bounds up, so its rule, until after since to the
// microsecond, draws the line one microsecond elsewhere for bounds with
// finer fractions; both refuse an end before its start.)
func (q *Query) EndAfter(start time.Time) bool {
	raw, _ := q.Raw("end")
	end, issue := DateTimeIssue(raw, "")
	return issue == "" && end.After(start)
}
