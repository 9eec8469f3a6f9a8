package rest

import (
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Deprecated returns the function that marks a v1 response deprecated:
// every v1 response, the v1 document's included, carries the same marks
// (docs/v1.md, "Deprecation"). It sets "Deprecation: true" and, when sunset
// is not the zero time, "Sunset" with the date as an HTTP date
// (http.TimeFormat, the IMF-fixdate of RFC 9110, section 5.6.7). A zero
// sunset means no removal date is set, so no Sunset header is sent rather
// than a date in year 1.
//
// The header value is formatted once, here, not per response.
func Deprecated(sunset time.Time) func(c *fiber.Ctx) {
	var value string
	if !sunset.IsZero() {
		value = sunset.UTC().Format(http.TimeFormat)
	}
	return func(c *fiber.Ctx) {
		c.Set("Deprecation", "true")
		if value != "" {
			c.Set("Sunset", value)
		}
	}
}
