package planning_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

const reservationsPath = "/api/v2/equipment_reservations"

func newEnv(t *testing.T) *apitest.Env {
	return apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.V2RateLimit = 100_000 }))
}

// day is an RFC 3339 time on day d of May 2026 at 08:00 UTC.
func day(d int) string { return fmt.Sprintf("2026-05-%02dT08:00:00Z", d) }

// book is one reservation of a table case: days [from, to), qty, status.
type book struct {
	from, to, qty int
	status        string
}

func reserve(t *testing.T, o *apitest.Org, eq uuid.UUID, b book) string {
	t.Helper()
	body := map[string]any{"equipment_id": eq.String(), "start_date": day(b.from), "end_date": day(b.to),
		"quantity": b.qty, "force_overbook": true, "overbook_reason": "table test setup"}
	if b.status != "" {
		body["reservation_status"] = b.status
	}
	r := o.Post(reservationsPath, body)
	if r.Status != 201 {
		t.Fatalf("reserve %+v: %d %s", b, r.Status, r.Body)
	}
	return r.Data()["id"].(string)
}

func availabilityPath(eq uuid.UUID, from, to int) string {
	return fmt.Sprintf("/api/v2/equipment/%s/availability?start=%s&end=%s", eq, url.QueryEscape(day(from)), url.QueryEscape(day(to)))
}

// steps renders intervals as "from-to:reserved/available" in May days.
func steps(t *testing.T, a map[string]any) string {
	t.Helper()
	var out []string
	for _, raw := range a["intervals"].([]any) {
		iv := raw.(map[string]any)
		out = append(out, fmt.Sprintf("%s-%s:%v/%v", iv["start"].(string)[8:10], iv["end"].(string)[8:10], iv["reserved"], iv["available"]))
	}
	return strings.Join(out, " ")
}

// TestAvailabilityCases: the answer for the cases the rule must get right,
// and for each that the guard (block mode) admits min_available units for
// the same window and refuses one more.
func TestAvailabilityCases(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	tests := []struct {
		name     string
		stock    *int
		books    []book
		from, to int
		want     string
		min      any // float64 or nil
		held     int // conflicting reservations
	}{
		{"touching windows do not overlap", bookingtest.Stock(4), []book{{1, 5, 4, ""}, {9, 12, 4, ""}}, 5, 9,
			"05-09:0/4", 4.0, 0},
		{"cancelled and returned reservations hold nothing", bookingtest.Stock(4),
			[]book{{1, 9, 4, "cancelled"}, {2, 8, 3, "returned"}, {3, 6, 1, "checked_out"}}, 1, 9,
			"01-03:0/4 03-06:1/3 06-09:0/4", 3.0, 1},
		{"null stock: available null, never short", nil, []book{{2, 4, 50, ""}}, 1, 5,
			"01-02:0/<nil> 02-04:50/<nil> 04-05:0/<nil>", nil, 1},
		{"window straddling several bookings sums them (the guard's rule)", bookingtest.Stock(12),
			[]book{{1, 3, 3, ""}, {3, 5, 3, "checked_out"}, {6, 8, 2, ""}, {7, 9, 2, ""}}, 1, 10,
			"01-05:3/9 05-06:0/12 06-07:2/10 07-08:4/8 08-09:2/10 09-10:0/12", 2.0, 4},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eq := rows.Equipment(fmt.Sprintf("Item %d", i), tt.stock, nil)
			var ids []string
			for _, b := range tt.books {
				id := reserve(t, a, eq, b)
				if b.status == "" || b.status == "reserved" || b.status == "checked_out" {
					ids = append(ids, id)
				}
			}
			r := a.Get(availabilityPath(eq, tt.from, tt.to))
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			d := r.Data()
			if got := steps(t, d); got != tt.want {
				t.Errorf("intervals %s, want %s", got, tt.want)
			}
			if d["min_available"] != tt.min || d["window_start"] != day(tt.from) || d["window_end"] != day(tt.to) || d["equipment_id"] != eq.String() {
				t.Errorf("answer %v, want min_available %v", d, tt.min)
			}
			if got := d["conflicting_reservation_ids"].([]any); len(got) != tt.held {
				t.Errorf("conflicting_reservation_ids %v, want %d of %v", got, tt.held, ids)
			}
			if tt.min == nil {
				return
			}
			n := int(tt.min.(float64))
			body := map[string]any{"equipment_id": eq.String(), "start_date": day(tt.from), "end_date": day(tt.to)}
			body["quantity"] = n + 1
			if res := a.Post(reservationsPath, body); res.Status != 422 || res.ErrorCode() != "overbook_blocked" {
				t.Errorf("guard with %d: %d %s, want overbook_blocked", n+1, res.Status, res.Body)
			}
			body["quantity"] = n
			if res := a.Post(reservationsPath, body); res.Status != 201 {
				t.Errorf("guard with min_available %d: %d %s", n, res.Status, res.Body)
			}
		})
	}
}

// TestWindowEndPastTheMicrosecond: an end a tenth of a microsecond after a
// reservation's start overlaps it (stored times are whole microseconds, so
// the end is rounded up, not down to the start it would only touch), and
// a start as fine is rounded down.
func TestWindowEndPastTheMicrosecond(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	eq := bookingtest.For(env, a).Equipment("Fine window", bookingtest.Stock(4), nil)
	reserve(t, a, eq, book{5, 9, 3, ""})
	for _, tc := range []struct{ start, end, windowStart, windowEnd string }{
		{day(1), "2026-05-05T08:00:00.0000001Z", day(1), "2026-05-05T08:00:00.000001Z"},
		{"2026-05-08T23:59:59.9999999Z", day(12), "2026-05-08T23:59:59.999999Z", day(12)},
	} {
		path := fmt.Sprintf("/api/v2/equipment/%s/availability?start=%s&end=%s", eq, url.QueryEscape(tc.start), url.QueryEscape(tc.end))
		r := a.Get(path)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", path, r.Status, r.Body)
		}
		d := r.Data()
		if d["min_available"] != 1.0 || d["window_start"] != tc.windowStart || d["window_end"] != tc.windowEnd {
			t.Errorf("start %s, end %s: min_available %v, window %v .. %v; want 1, %s .. %s",
				tc.start, tc.end, d["min_available"], d["window_start"], d["window_end"], tc.windowStart, tc.windowEnd)
		}
	}
	// The last instant of the years is not rounded out of them (an end in
	// the year 10000 could not be rendered).
	last := fmt.Sprintf("/api/v2/equipment/%s/availability?start=9999-06-01T00:00:00Z&end=9999-12-31T23:59:59.9999999Z", eq)
	if r := a.Get(last); r.Status != 200 || r.Data()["window_end"] != "9999-12-31T23:59:59.999999Z" {
		t.Errorf("%s: %d %s, want 200 ending at 9999-12-31T23:59:59.999999Z", last, r.Status, r.Body)
	}
}

// TestBatchAvailability: the batch answers a list in the order asked, one
// entry per distinct id, and equals the single answers.
func TestBatchAvailability(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	var ids []string
	for i := range 3 {
		eq := rows.Equipment(fmt.Sprintf("Batch %d", i), bookingtest.Stock(5+i), nil)
		reserve(t, a, eq, book{2, 4, i + 1, ""})
		ids = append(ids, eq.String())
	}
	q := "&start=" + url.QueryEscape(day(1)) + "&end=" + url.QueryEscape(day(6))
	r := a.Get("/api/v2/availability?equipment_id=" + ids[2] + "," + ids[0] + "," + ids[2] + "," + ids[1] + q)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	list := r.List()
	if len(list) != 3 || list[0]["equipment_id"] != ids[2] || list[1]["equipment_id"] != ids[0] || list[2]["equipment_id"] != ids[1] {
		t.Fatalf("batch order: %s", r.Body)
	}
	for _, item := range list {
		single := a.Get("/api/v2/equipment/" + item["equipment_id"].(string) + "/availability?" + q[1:])
		if !crudtest.Same(single.Data(), item) {
			t.Errorf("batch %v differs from single %v", item, single.Data())
		}
	}
	if list[0]["min_available"] != 4.0 {
		t.Errorf("min_available %v, want 7-3", list[0]["min_available"])
	}
}

func TestAvailabilityRejects(t *testing.T) {
	env := newEnv(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	eq := bookingtest.For(env, a).Equipment("Mine", bookingtest.Stock(1), nil)
	theirs := bookingtest.For(env, b).Equipment("Theirs", bookingtest.Stock(1), nil)
	item := "/api/v2/equipment/" + eq.String() + "/availability"
	ok := "start=" + url.QueryEscape(day(1)) + "&end=" + url.QueryEscape(day(2))
	many := make([]string, 101)
	for i := range many {
		many[i] = uuid.NewString()
	}
	bad := func(name, path, field string) crudtest.Case {
		return crudtest.Case{Name: name, Method: "GET", Path: path, Status: 422, Code: "validation_error", Field: field}
	}
	crudtest.Rejects(t, env, a, "equipment_reservations", []crudtest.Case{
		bad("no start", item+"?end="+day(2), "start"),
		bad("no end", item+"?start="+day(2), "end"),
		bad("date only", item+"?start=2026-05-01&end="+day(2), "start"),
		bad("unencoded plus offset", item+"?start=2026-05-01T08:00:00+02:00&end="+day(9), "start"),
		bad("end before start", item+"?start="+day(3)+"&end="+day(2), "end"),
		bad("end equals start", item+"?start="+day(3)+"&end="+day(3), "end"),
		bad("window over 366 days", item+"?start=2026-01-01T00:00:00Z&end=2027-01-03T00:00:00Z", "end"),
		// The year range of every date-time (storage.MinYear to MaxYear).
		bad("start in year 0", item+"?start=0000-01-01T00:00:00Z&end=0000-01-02T00:00:00Z", "start"),
		bad("start in 1899", item+"?start=1899-12-31T00:00:00Z&end=1900-01-01T00:00:00Z", "start"),
		bad("end in 10000", item+"?start=9999-12-31T00:00:00Z&end=10000-01-01T00:00:00Z", "end"),
		// Strict RFC 3339 (rest.ParseDateTime): time.Parse would shift these.
		bad("offset +24:00", item+"?start="+url.QueryEscape("2026-05-01T08:00:00+24:00")+"&end="+day(9), "start"),
		bad("offset minute 60", item+"?start="+day(1)+"&end="+url.QueryEscape("2026-05-09T08:00:00+23:60"), "end"),
		// End equal to start, however written, is not after it, nor is an
		// end in start's microsecond: the order is judged to the
		// microsecond (an end rounded up would be after start there, even
		// one before it as sent; one in a later microsecond is:
		// TestWindowEndPastTheMicrosecond).
		bad("end equal to start in nanoseconds", item+"?start=2026-05-01T08:00:00Z&end=2026-05-01T08:00:00.000000000Z", "end"),
		bad("end before start within a microsecond", item+"?start=2026-05-01T08:00:00.0000009Z&end=2026-05-01T08:00:00.0000001Z", "end"),
		bad("end after start within a microsecond", item+"?start=2026-05-01T08:00:00.0000001Z&end=2026-05-01T08:00:00.0000009Z", "end"),
		bad("batch end before start within a microsecond",
			"/api/v2/availability?equipment_id="+eq.String()+"&start=2026-05-01T08:00:00.0000009Z&end=2026-05-01T08:00:00.0000001Z", "end"),
		bad("batch without ids", "/api/v2/availability?"+ok, "equipment_id"),
		bad("batch bad id", "/api/v2/availability?equipment_id="+eq.String()+",nope&"+ok, "equipment_id"),
		bad("batch of 101", "/api/v2/availability?equipment_id="+strings.Join(many, ",")+"&"+ok, "equipment_id"),
		bad("batch without window", "/api/v2/availability?equipment_id="+eq.String(), "start"),
		// One page holds every id asked: a page size or cursor is refused, not ignored.
		bad("batch with a limit", "/api/v2/availability?equipment_id="+eq.String()+"&limit=1&"+ok, "limit"),
		bad("batch with a cursor", "/api/v2/availability?equipment_id="+eq.String()+"&cursor=abc&"+ok, "cursor"),
		{Name: "not a uuid", Method: "GET", Path: "/api/v2/equipment/nope/availability?" + ok, Status: 404, Code: "not_found"},
		{Name: "unknown equipment", Method: "GET", Path: "/api/v2/equipment/" + uuid.NewString() + "/availability?" + ok, Status: 404, Code: "not_found"},
		{Name: "another organization's equipment", Method: "GET", Path: "/api/v2/equipment/" + theirs.String() + "/availability?" + ok, Status: 404, Code: "not_found"},
		{Name: "batch naming another organization's equipment", Method: "GET",
			Path: "/api/v2/availability?equipment_id=" + eq.String() + "," + theirs.String() + "&" + ok, Status: 404, Code: "not_found"},
	})
	// The first and the last year of the range are answered.
	for _, w := range []string{"start=1900-01-01T00:00:00Z&end=1900-01-02T00:00:00Z", "start=9999-12-30T00:00:00Z&end=9999-12-31T23:59:59Z"} {
		if r := a.Get(item + "?" + w); r.Status != 200 {
			t.Errorf("%s: %d %s", w, r.Status, r.Body)
		}
	}
	// A batch's 404 names the ids that name nothing, in its message and in
	// details.missing_ids, a batch of one too; the detail route's is a detail
	// route's ("equipment not found", no details).
	missing := many[0]
	for _, tc := range []struct {
		path, message string
		ids           []any
	}{
		{"/api/v2/availability?equipment_id=" + theirs.String() + "&" + ok, "equipment not found: " + theirs.String(), []any{theirs.String()}},
		{"/api/v2/availability?equipment_id=" + missing + "," + eq.String() + "," + theirs.String() + "&" + ok,
			"equipment not found: " + missing + ", " + theirs.String(), []any{missing, theirs.String()}},
		{"/api/v2/equipment/" + theirs.String() + "/availability?" + ok, "equipment not found", nil},
	} {
		r := a.Get(tc.path)
		got, _ := r.ErrorDetails()["missing_ids"].([]any)
		if r.Status != 404 || r.ErrorMessage() != tc.message || !slices.Equal(got, tc.ids) {
			t.Errorf("%s: %d %s, want 404 saying %q, missing_ids %v", tc.path, r.Status, r.Body, tc.message, tc.ids)
		}
	}
	// 100 distinct ids are accepted (all unknown here, so not_found).
	if r := a.Get("/api/v2/availability?equipment_id=" + strings.Join(many[:100], ",") + "&" + ok); r.Status != 404 {
		t.Errorf("100 ids: %d %s", r.Status, r.Body)
	}
}

func TestPlanningScopes(t *testing.T) {
	env := newEnv(t)
	for _, tt := range []struct {
		scope tenancy.Scope
		want  int
	}{
		{tenancy.EquipmentReservationsRead, 200},
		{tenancy.EquipmentReservationsWrite, 403},
		{tenancy.EquipmentRead, 403},
		{tenancy.EventsRead, 403},
	} {
		o := env.NewOrgWithKey("S", apikey.Live, tt.scope)
		rows := bookingtest.For(env, o)
		eq, v := rows.Equipment("e", nil, nil), rows.Vehicle("v", "available")
		q := "start=" + url.QueryEscape(day(1)) + "&end=" + url.QueryEscape(day(2))
		for _, p := range []string{
			"/api/v2/equipment/" + eq.String() + "/availability?" + q,
			"/api/v2/availability?equipment_id=" + eq.String() + "&" + q,
			"/api/v2/vehicles/" + v.String() + "/load?" + q,
		} {
			if r := o.Get(p); r.Status != tt.want || (tt.want == 403 && r.ErrorCode() != "insufficient_scope") {
				t.Errorf("GET %s with %s: %d %s, want %d", p, tt.scope, r.Status, r.Body, tt.want)
			}
		}
	}
}
