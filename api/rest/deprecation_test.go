package rest

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

// TestDeprecated: Deprecation is always "true"; Sunset is the date as an
// HTTP date in GMT whatever the zone it was given in, and absent for the
// zero time.
func TestDeprecated(t *testing.T) {
	tests := []struct {
		name   string
		sunset time.Time
		want   string // "": no Sunset header
	}{
		{"default date", time.Date(2027, 6, 30, 0, 0, 0, 0, time.UTC), "Wed, 30 Jun 2027 00:00:00 GMT"},
		{"another zone", time.Date(2027, 9, 1, 2, 0, 0, 0, time.FixedZone("CEST", 2*3600)), "Wed, 01 Sep 2027 00:00:00 GMT"},
		{"single-digit day", time.Date(2028, 1, 5, 0, 0, 0, 0, time.UTC), "Wed, 05 Jan 2028 00:00:00 GMT"},
		{"zero", time.Time{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := fiber.New()
			mark := Deprecated(tt.sunset)
			app.Get("/", func(c *fiber.Ctx) error { mark(c); return nil })
			res, err := app.Test(httptest.NewRequest("GET", "/", nil))
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Header.Get("Deprecation"); got != "true" {
				t.Errorf("Deprecation %q, want true", got)
			}
			got, present := res.Header["Sunset"]
			switch {
			case tt.want == "" && present:
				t.Errorf("Sunset %q for a zero date, want no header", got)
			case tt.want != "" && res.Header.Get("Sunset") != tt.want:
				t.Errorf("Sunset %q, want %q", res.Header.Get("Sunset"), tt.want)
			}
		})
	}
}
