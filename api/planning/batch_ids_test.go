package planning_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/bookingtest"
)

// TestBatchIDsSkipEmptyElements: GET /availability's equipment_id list
// leaves out empty elements (a list built with a trailing comma) as expand
// and the change feed's type do (docs/decisions.md), and still needs 1 to
// 100 distinct ids: a list of commas alone is 422, as an empty one is.
func TestBatchIDsSkipEmptyElements(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	x := rows.Equipment("X", bookingtest.Stock(2), nil).String()
	y := rows.Equipment("Y", bookingtest.Stock(3), nil).String()
	many := make([]string, 101)
	for i := range many {
		many[i] = uuid.NewString()
	}
	ok := "&start=" + url.QueryEscape(day(1)) + "&end=" + url.QueryEscape(day(2))
	for _, tt := range []struct {
		name, list string
		status     int
		ids        []string // the answer's equipment ids, in order, on 200
	}{
		{"trailing comma", x + ",", 200, []string{x}},
		{"leading comma", "," + x, 200, []string{x}},
		{"empty middle element", x + ",," + y, 200, []string{x, y}},
		{"blank elements", url.QueryEscape(" " + y + " , ," + x + ", "), 200, []string{y, x}},
		{"repeat and trailing comma", y + "," + y + ",", 200, []string{y}},
		// 100 distinct ids, all unknown: past the list rule, then not_found.
		{"100 ids and a trailing comma", strings.Join(many[:100], ",") + ",", 404, nil},
		{"101 ids and a trailing comma", strings.Join(many, ",") + ",", 422, nil},
		{"empty", "", 422, nil},
		{"a comma alone", ",", 422, nil},
		{"commas and blanks", url.QueryEscape(" , ,, "), 422, nil},
		{"a bad element beside a trailing comma", x + ",nope,", 422, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := a.Get("/api/v2/availability?equipment_id=" + tt.list + ok)
			if r.Status != tt.status {
				t.Fatalf("%d %s, want %d", r.Status, r.Body, tt.status)
			}
			switch tt.status {
			case 422:
				fs, _ := r.ErrorDetails()["fields"].([]any)
				if r.ErrorCode() != "validation_error" || len(fs) != 1 || fs[0].(map[string]any)["field"] != "equipment_id" {
					t.Fatalf("refusal %s, want validation_error on equipment_id", r.Body)
				}
			case 200:
				var got []string
				for _, item := range r.List() {
					got = append(got, fmt.Sprint(item["equipment_id"]))
				}
				if strings.Join(got, ",") != strings.Join(tt.ids, ",") {
					t.Fatalf("answered %v, want %v", got, tt.ids)
				}
			}
		})
	}
}
