package rest_test

import (
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// TestPositiveInt: page and limit are plain decimal digits in 1..max, leading
// zeros allowed however many there are; anything else is refused.
func TestPositiveInt(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		want int
		ok   bool
	}{
		{"1", 100, 1, true},
		{"100", 100, 100, true},
		{"050", 100, 50, true},
		{"0000000000000000000050", 100, 50, true},
		{"000000000000000000000000001", 1<<31 - 1, 1, true},
		{"2147483647", 1<<31 - 1, 1<<31 - 1, true},
		{"2147483648", 1<<31 - 1, 0, false},
		{"101", 100, 0, false},
		{"0", 100, 0, false},
		{"0000", 100, 0, false},
		{"", 100, 0, false},
		{"-1", 100, 0, false},
		{"+2", 100, 0, false},
		{"1.5", 100, 0, false},
		{"1e2", 100, 0, false},
		{"0x10", 100, 0, false},
		{"１", 100, 0, false}, // a full-width digit
		{"99999999999999999999", 1<<31 - 1, 0, false},
		{"999999999999999999999999", 1<<31 - 1, 0, false},
	} {
		got, ok := rest.PositiveInt(tt.in, tt.max)
		if got != tt.want || ok != tt.ok {
			t.Errorf("PositiveInt(%q, %d) = %d, %v; want %d, %v", tt.in, tt.max, got, ok, tt.want, tt.ok)
		}
	}
}

// TestPageLimitIsPlainDigits: v2 reads limit by rest.PositiveInt as v1
// does; a sign or a number spelled another way is 422, as out of range.
func TestPageLimitIsPlainDigits(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Limits")
	for _, tt := range []struct {
		limit string
		ok    bool
	}{{"5", true}, {"005", true}, {"%2B5", false}, {"5.0", false}, {"1e1", false}, {"0", false}, {"101", false}, {"", false}} {
		t.Run(tt.limit, func(t *testing.T) {
			r := a.Get("/api/v2/events?limit=" + tt.limit)
			if tt.ok && r.Status != 200 || !tt.ok && (r.Status != 422 || !strings.Contains(string(r.Body), "must be an integer from 1 to 100")) {
				t.Fatalf("limit=%s: %d %.300s", tt.limit, r.Status, r.Body)
			}
		})
	}
}

// TestAnUnknownExpansionRepeatsAtMost128Bytes: the 422 of an unknown
// expand value repeats errs.MaxEcho bytes of it, as every other echo.
func TestAnUnknownExpansionRepeatsAtMost128Bytes(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Expand")
	long := strings.Repeat("Z", 7000)
	r := a.Get("/api/v2/pick_lists?expand=" + long)
	cut := long[:errs.MaxEcho-len("…")] + "…"
	if r.Status != 422 || !strings.Contains(string(r.Body), cut) || len(r.Body) > 1000 {
		t.Fatalf("%d, body of %d bytes: %.300s", r.Status, len(r.Body), r.Body)
	}
}
