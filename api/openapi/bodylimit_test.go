package openapi_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
)

// TestPayloadTooLargeExamplesAreTheMessage: the 413 example of both
// documents is the message the server sends, which rest formats from
// rest.BodyLimit; a changed limit fails here until the documents say so.
func TestPayloadTooLargeExamplesAreTheMessage(t *testing.T) {
	want := rest.FromFiber(fiber.ErrRequestEntityTooLarge).Message
	v2, err := openapi.JSON()
	if err != nil {
		t.Fatal(err)
	}
	v1, err := openapi.V1JSON(time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"openapi.yaml": v2, "v1.yaml": v1} {
		var d struct {
			Components struct {
				Responses map[string]struct {
					Content map[string]struct {
						Example struct {
							Error struct {
								Message string `json:"message"`
							} `json:"error"`
						} `json:"example"`
					} `json:"content"`
				} `json:"responses"`
			} `json:"components"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		r, ok := d.Components.Responses["PayloadTooLarge"]
		if !ok {
			t.Fatalf("%s has no PayloadTooLarge response", name)
		}
		if got := r.Content["application/json"].Example.Error.Message; got != want {
			t.Errorf("%s PayloadTooLarge example message %q, want %q", name, got, want)
		}
	}
}
