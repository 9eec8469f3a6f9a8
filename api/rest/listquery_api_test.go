package rest_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestEveryBadQueryParameterIsNamed: a v2 GET answers one 422 whose
// details.fields names every bad query parameter (filters, expand, limit,
// cursor) in the order the handler reads them, on each kind of list and on
// the planning routes (docs/decisions.md, "Validation reports every bad
// field at once").
func TestEveryBadQueryParameterIsNamed(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Queries")
	long := strings.Repeat("x", 201)
	for _, tc := range []struct {
		path   string
		fields []string
	}{
		{"/api/v2/equipment_reservations?event_id=x&status=nope&limit=0", []string{"event_id", "status", "limit"}},
		{"/api/v2/equipment_reservations?limit=0&status=nope&vehicle_id=&event_id=x&expand=bogus&cursor=zz",
			[]string{"event_id", "vehicle_id", "status", "expand", "limit"}},
		{"/api/v2/quotes?status=bad&expand=nope&limit=500", []string{"status", "expand", "limit"}},
		{"/api/v2/invoices?status=bad&limit=x", []string{"status", "limit"}},
		{"/api/v2/pick_lists?event_id=x&status=done&archived=maybe&expand=vehicle&limit=0",
			[]string{"event_id", "status", "archived", "expand", "limit"}},
		{"/api/v2/events?status=nope&expand=x&limit=101", []string{"status", "expand", "limit"}},
		{"/api/v2/jobs?status=nope&limit=0", []string{"status", "limit"}},
		{"/api/v2/clients?search=" + long + "&limit=0", []string{"search", "limit"}},
		{"/api/v2/equipment?category=" + long + "&expand=nope&limit=0", []string{"category", "expand", "limit"}},
		{"/api/v2/crew_members?expand=x&limit=0&cursor=zz", []string{"expand", "limit", "cursor"}},
		{"/api/v2/request_logs?status=abc&limit=0", []string{"status", "limit"}},
		{"/api/v2/request_logs?method=FETCH&key_id=x&since=yesterday&expand=x&limit=0",
			[]string{"method", "key_id", "since", "expand", "limit"}},
		{"/api/v2/changes?type=event.exploded&limit=0", []string{"type", "limit"}},
		{"/api/v2/changes?type=event.exploded&expand=x&limit=0&cursor=zz", []string{"type", "expand", "limit"}},
		{"/api/v2/changes?expand=x&cursor=zz", []string{"expand", "cursor"}},
		{"/api/v2/vehicles/" + uuid.NewString() + "/load?event_id=x&expand=nope", []string{"event_id", "expand"}},
		{"/api/v2/vehicles/" + uuid.NewString() + "/load?start=x&expand=nope", []string{"start", "end", "expand"}},
		{"/api/v2/availability?equipment_id=nope&start=x&expand=y", []string{"equipment_id", "start", "end", "expand"}},
		{"/api/v2/equipment/" + uuid.NewString() + "/availability?end=x&expand=y", []string{"start", "end", "expand"}},
		{"/api/v2/webhook_endpoints?expand=x&limit=0&cursor=zz", []string{"expand", "limit", "cursor"}},
		{"/api/v2/webhook_endpoints/" + uuid.NewString() + "/deliveries?expand=x&limit=101", []string{"expand", "limit"}},
	} {
		t.Run(tc.path[:min(len(tc.path), 80)], func(t *testing.T) {
			r := a.Get(tc.path)
			if got := crudtest.Fields(r); r.Status != 422 || r.ErrorCode() != "validation_error" || !slices.Equal(got, tc.fields) {
				t.Fatalf("%d naming %v, want 422 naming %v: %.600s", r.Status, got, tc.fields, r.Body)
			}
		})
	}
}

// TestACursorIsJudgedOnlyAfterGoodFilters: a cursor is bound to the values
// of the filters, so with a bad filter (a typo on the second page) it is
// not judged, and the 422 names the filter only; with good filters a bad
// cursor, or one of another filter value, is named.
func TestACursorIsJudgedOnlyAfterGoodFilters(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Cursors")
	rows := bookingtest.For(env, a)
	start := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	for _, name := range []string{"One", "Two"} {
		rows.Insert("events", map[string]any{"name": name, "venue": "Hall", "status": "confirmed",
			"start_date": start, "end_date": start.Add(time.Hour)})
	}
	first := a.Get("/api/v2/events?status=confirmed&limit=1")
	p, _ := first.JSON()["pagination"].(map[string]any)
	next, _ := p["next_cursor"].(string)
	if first.Status != 200 || next == "" {
		t.Fatalf("first page: %d %s", first.Status, first.Body)
	}
	cursor := url.QueryEscape(next)
	for _, tc := range []struct {
		name   string
		query  string
		fields []string
	}{
		{"a bad filter and a good cursor", "status=confirmd&limit=1&cursor=" + cursor, []string{"status"}},
		{"a bad filter, a bad limit and a good cursor", "status=confirmd&limit=0&cursor=" + cursor, []string{"status", "limit"}},
		{"a good filter and a bad cursor", "status=confirmed&cursor=" + cursor[:len(cursor)-3], []string{"cursor"}},
		{"a cursor of another filter value", "status=tentative&cursor=" + cursor, []string{"cursor"}},
		{"a bad expand and a bad cursor", "status=confirmed&expand=x&cursor=zz", []string{"expand", "cursor"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := a.Get("/api/v2/events?" + tc.query)
			if got := crudtest.Fields(r); r.Status != 422 || !slices.Equal(got, tc.fields) {
				t.Fatalf("%d naming %v, want 422 naming %v: %s", r.Status, got, tc.fields, r.Body)
			}
		})
	}
	if r := a.Get("/api/v2/events?status=confirmed&limit=1&cursor=" + cursor); r.Status != 200 || len(r.List()) != 1 {
		t.Fatalf("the second page: %d %s", r.Status, r.Body)
	}
}

// TestABadParameterBeatsAnUnreadableExpansion: an expansion the key may
// not read is 403 insufficient_scope only when no parameter is bad; with a
// bad one the answer is the 422 naming the bad ones. So is a type of the
// change feed the key may not read.
func TestABadParameterBeatsAnUnreadableExpansion(t *testing.T) {
	env := apitest.New(t)
	planner := env.NewOrgWithKey("Scopes", apikey.Live, tenancy.EquipmentReservationsRead)
	for _, tc := range []struct {
		path   string
		status int
		fields []string
	}{
		{"/api/v2/equipment_reservations?expand=equipment", 403, nil},
		{"/api/v2/equipment_reservations?status=nope&expand=equipment", 422, []string{"status"}},
		{"/api/v2/equipment_reservations?expand=equipment&limit=0", 422, []string{"limit"}},
		{"/api/v2/equipment_reservations?event_id=x&expand=equipment,nope", 422, []string{"event_id", "expand"}},
		{"/api/v2/equipment_reservations?expand=equipment&cursor=zz", 422, []string{"cursor"}},
		{"/api/v2/vehicles/" + uuid.NewString() + "/load?event_id=" + uuid.NewString(), 403, nil},
		{"/api/v2/vehicles/" + uuid.NewString() + "/load?event_id=" + uuid.NewString() + "&expand=nope", 422, []string{"expand"}},
		{"/api/v2/changes?type=client.created", 403, nil},
		{"/api/v2/changes?type=client.created&limit=0", 422, []string{"limit"}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			r := planner.Get(tc.path)
			if tc.status == 403 {
				if r.Status != 403 || r.ErrorCode() != "insufficient_scope" {
					t.Fatalf("%d %s, want 403 insufficient_scope", r.Status, r.Body)
				}
				return
			}
			if got := crudtest.Fields(r); r.Status != 422 || !slices.Equal(got, tc.fields) {
				t.Fatalf("%d naming %v, want 422 naming %v: %s", r.Status, got, tc.fields, r.Body)
			}
		})
	}
}
