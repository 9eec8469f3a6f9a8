package rest_test

import (
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestMain drops the databases of the tests through the API (the other
// tests of the package need none).
func TestMain(m *testing.M) { pgtest.Main(m) }

// issues returns details.fields of a validation_error as field → issue.
func issues(r *apitest.Response) map[string]string {
	e, _ := r.JSON()["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	list, _ := d["fields"].([]any)
	out := map[string]string{}
	for _, f := range list {
		m, _ := f.(map[string]any)
		field, _ := m["field"].(string)
		issue, _ := m["issue"].(string)
		out[field] = issue
	}
	return out
}

// TestEndWithinTheMicrosecondOfStart: an end date less than a microsecond
// after the start passes "end after start" at Go's nanoseconds but not at
// PostgreSQL's microseconds. Date-times are truncated to the microsecond as
// they are read (ParseDateTime), so the API answers with the documented
// issue, end_date "must be after start_date", rather than the database's
// generic refusal; and one microsecond apart is accepted.
func TestEndWithinTheMicrosecondOfStart(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Instants")
	eq := bookingtest.For(env, a).Equipment("Truss", bookingtest.Stock(5), nil).String()
	const start = "2028-01-01T00:00:00Z"
	for _, tc := range []struct {
		path string
		body map[string]any
	}{
		{"/api/v2/events", map[string]any{"name": "Gala", "venue": "Pier 4"}},
		{"/api/v2/equipment_reservations", map[string]any{"equipment_id": eq}},
	} {
		post := func(end string) *apitest.Response {
			b := map[string]any{"start_date": start, "end_date": end}
			for k, v := range tc.body {
				b[k] = v
			}
			return a.Post(tc.path, b)
		}
		for _, end := range []string{"2028-01-01T00:00:00.0000009Z", "2028-01-01T00:00:00.000000999Z", "2028-01-01T01:00:00.0000009+01:00"} {
			res := post(end)
			if got := issues(res); res.Status != 422 || res.ErrorCode() != "validation_error" || len(got) != 1 ||
				got["end_date"] != "must be after start_date" {
				t.Errorf("POST %s ending %s: %d %s; want 422 end_date: must be after start_date", tc.path, end, res.Status, res.Body)
			}
		}
		res := post("2028-01-01T00:00:00.0000019Z")
		if res.Status != 201 || res.Data()["end_date"] != "2028-01-01T00:00:00.000001Z" {
			t.Errorf("POST %s a microsecond apart: %d %s", tc.path, res.Status, res.Body)
		}
	}
}

// TestDateTimeOffsetsOutsideRFC3339: offsets RFC 3339 does not have, which
// time.Parse would shift by a day or an hour, are refused with the message
// of any bad date-time.
func TestDateTimeOffsetsOutsideRFC3339(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Offsets")
	for _, start := range []string{"2028-01-01T00:00:00+24:00", "2028-01-01T00:00:00-24:00", "2028-01-01T00:00:00+23:60", "2028-01-01T1:00:00Z"} {
		res := a.Post("/api/v2/events", map[string]any{"name": "Gala", "venue": "Pier 4", "start_date": start, "end_date": "2028-02-01T00:00:00Z"})
		if got := issues(res); res.Status != 422 || !strings.HasPrefix(got["start_date"], "must be an RFC 3339 date-time") {
			t.Errorf("start_date %s: %d %s", start, res.Status, res.Body)
		}
	}
}

// TestMoneyExponentsThroughTheAPI: a line item price in exponent form is
// read exactly when it is an amount, and refused with the usual issues when
// no amount can have its exponent (1e1000000 once cost 20 to 60 ms of CPU
// per value; platform/money's TestParseCostIsBounded shows it no longer
// does).
func TestMoneyExponentsThroughTheAPI(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Prices")
	post := func(price string) *apitest.Response {
		return a.Post("/api/v2/quotes", `{"title":"Exponents","line_items":[{"description":"d","quantity":1,"unit_price":`+price+`}]}`)
	}
	for price, want := range map[string]string{
		"1e1000000":  "must be a number from 0 to 9999999999.99",
		"-1e1000000": "must be a number from 0 to 9999999999.99",
		"1e-1000000": "must have at most 2 decimal places",
		"1e10":       "must be a number from 0 to 9999999999.99",
		"1e-3":       "must have at most 2 decimal places",
	} {
		res := post(price)
		if got := issues(res); res.Status != 422 || got["line_items[0].unit_price"] != want {
			t.Errorf("unit_price %s: %d %s; want 422 %q", price, res.Status, res.Body, want)
		}
	}
	res := post("125e-2")
	if res.Status != 201 || !strings.Contains(string(res.Body), `"unit_price":1.25`) {
		t.Errorf("unit_price 125e-2: %d %s", res.Status, res.Body)
	}
}
