package rest_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestParseExpansionsChecksScopes: each expansion that takes effect needs
// one of its scopes; a key lacking them gets the 403 insufficient_scope of
// auth.Require, with details.required listing them, and an unknown name
// stays a 422. A nested expansion takes effect only with its parent, and
// without it asks for no scope.
func TestParseExpansionsChecksScopes(t *testing.T) {
	allowed := []rest.Expansion{
		rest.Expand("equipment", tenancy.EquipmentRead),
		rest.Expand("event", tenancy.EventsRead, tenancy.JobsRead),
		rest.Expand("vehicle", tenancy.EquipmentReservationsRead),
		rest.Expand("category", tenancy.EquipmentRead).In("equipment"),
		rest.Expand("driver", tenancy.CrewMembersRead).In("vehicle"),
	}
	cases := []struct {
		name     string
		scopes   []tenancy.Scope
		sandbox  bool
		expand   string
		status   int
		code     string
		required []string
		want     []string
	}{
		{"no expansion", []tenancy.Scope{tenancy.EventsRead}, false, "", 200, "", nil, nil},
		{"held scope", []tenancy.Scope{tenancy.EquipmentRead}, false, "equipment", 200, "", nil, []string{"equipment"}},
		{"any of the scopes", []tenancy.Scope{tenancy.JobsRead}, false, "event", 200, "", nil, []string{"event"}},
		{"all held", []tenancy.Scope{tenancy.EquipmentRead, tenancy.EventsRead, tenancy.EquipmentReservationsRead}, false,
			"equipment, event,vehicle", 200, "", nil, []string{"equipment", "event", "vehicle"}},
		{"missing scope", []tenancy.Scope{tenancy.EventsRead}, false, "equipment", 403, "insufficient_scope",
			[]string{"equipment:read"}, nil},
		{"missing one of several", []tenancy.Scope{tenancy.EventsRead, tenancy.EquipmentRead}, false, "equipment,vehicle", 403,
			"insufficient_scope", []string{"equipment_reservations:read"}, nil},
		{"missing, all accepted listed", []tenancy.Scope{tenancy.EquipmentRead}, false, "event", 403, "insufficient_scope",
			[]string{"events:read", "jobs:read"}, nil},
		{"sandbox key alike", []tenancy.Scope{tenancy.EventsRead}, true, "vehicle", 403, "insufficient_scope",
			[]string{"equipment_reservations:read"}, nil},
		{"nested with its parent", []tenancy.Scope{tenancy.EquipmentRead}, false, "category,equipment", 200, "", nil,
			[]string{"category", "equipment"}},
		{"nested without its parent has no effect", []tenancy.Scope{tenancy.EventsRead}, false, "category,driver", 200, "", nil, nil},
		{"nested, its own scope missing", []tenancy.Scope{tenancy.EquipmentReservationsRead}, false, "vehicle,driver", 403,
			"insufficient_scope", []string{"crew_members:read"}, nil},
		{"nested, its parent's scope missing", []tenancy.Scope{tenancy.EventsRead}, false, "equipment,category", 403,
			"insufficient_scope", []string{"equipment:read"}, nil},
		{"unknown before scope", []tenancy.Scope{tenancy.EventsRead}, false, "equipment,nope", 422, "validation_error", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			app := fiber.New(fiber.Config{ErrorHandler: rest.ErrorHandler(slog.New(slog.DiscardHandler))})
			app.Use(func(c *fiber.Ctx) error {
				rest.EnsureRequestID(c)
				c.SetUserContext(tenancy.WithPrincipal(c.UserContext(),
					&tenancy.Principal{Scopes: tenancy.NewScopeSet(tc.scopes...), Sandbox: tc.sandbox}))
				return c.Next()
			})
			app.Get("/", func(c *fiber.Ctx) error {
				want, err := rest.ParseExpansions(c, allowed...)
				if err != nil {
					return err
				}
				var names []string
				for n := range want {
					names = append(names, n)
				}
				slices.Sort(names)
				return c.JSON(names)
			})
			req := httptest.NewRequest(http.MethodGet, "/?expand="+strings.ReplaceAll(tc.expand, " ", "%20"), nil)
			resp, err := app.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d %s, want %d", resp.StatusCode, raw, tc.status)
			}
			if tc.status == 200 {
				var got []string
				_ = json.Unmarshal(raw, &got)
				if !slices.Equal(got, tc.want) {
					t.Fatalf("expanded %v, want %v", got, tc.want)
				}
				return
			}
			var body struct {
				Error struct {
					Code    string `json:"code"`
					Details struct {
						Required []string `json:"required"`
					} `json:"details"`
				} `json:"error"`
			}
			if err := json.Unmarshal(raw, &body); err != nil {
				t.Fatalf("%v: %s", err, raw)
			}
			if body.Error.Code != tc.code || !slices.Equal(body.Error.Details.Required, tc.required) {
				t.Fatalf("error %s, want %s required %v", raw, tc.code, tc.required)
			}
		})
	}
}
