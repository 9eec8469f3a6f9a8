package server_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// answered is what one request got: status, error.code and error.message.
type answered struct {
	status int
	apitest.ErrorExample
}

func answerOf(r *apitest.Response) answered {
	return answered{r.Status, apitest.ErrorExample{Code: r.ErrorCode(), Message: r.ErrorMessage()}}
}

// TestErrorExamplesAreWhatTheServerSays: every example of an error answer
// in the v2 document (components.responses) is the code and message the
// server gives in the case it illustrates, caused for real here. An
// integrator copies these texts, or matches on them; a message changed in
// the code and not in the document is caught here (the contract check
// validates only the shape). A new example needs a row, or a reason in
// notCaused. The v1 document's examples are api/v1's
// TestErrorExamplesAreWhatTheServerSends.
func TestErrorExamplesAreWhatTheServerSays(t *testing.T) {
	env := apitest.New(t, apitest.WithRoutes(func(v2 fiber.Router) {
		v2.Get("/examples/panic", func(*fiber.Ctx) error { panic("a bug") })
		v2.Get("/examples/database-down", func(c *fiber.Ctx) error {
			// A database that is not there: nothing listens on port 1.
			_, err := pgx.Connect(c.UserContext(), "postgres://postgres@127.0.0.1:1/none?connect_timeout=5")
			return database.Error(err)
		})
	}))
	a := env.NewOrg("Examples")
	rows := bookingtest.For(env, a)
	client := a.Post("/api/v2/clients", map[string]any{"name": "Summit Stage Works"}).Data()["id"].(string)
	equipment := rows.Equipment("Truss", bookingtest.Stock(3), nil).String()
	event := rows.Event("Gala").String()
	window := map[string]any{"equipment_id": equipment, "event_id": event, "quantity": 1,
		"start_date": "2026-05-01T08:00:00Z", "end_date": "2026-05-02T08:00:00Z"}
	clientsOnly := a.WithKey(apikey.Live, tenancy.Scope("clients:read"))
	base := env.Listen(t)
	raw := func(request string) answered {
		head, body, _ := strings.Cut(request, "\r\n\r\n")
		resp, answer := rawExchange(t, base, head+"\r\n\r\n", strings.NewReader(body))
		return answerOf(&apitest.Response{Status: resp.StatusCode, Body: answer})
	}
	tooLarge := func(method, path string) answered {
		body := `{"name":"` + strings.Repeat("a", 1<<20) + `"}`
		return raw(fmt.Sprintf("%s %s HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			method, path, a.Key, len(body), body))
	}
	app := func(path string) answered {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Authorization", "Bearer "+a.Key)
		resp, err := env.Svc.App.Test(req, 30_000)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return answerOf(&apitest.Response{Status: resp.StatusCode, Body: body})
	}
	cases := map[string]func() answered{
		"MalformedJSON": func() answered { return answerOf(a.Post("/api/v2/clients", "{")) },
		"Unauthorized": func() answered {
			return answerOf(env.Send(apitest.Request{Method: http.MethodGet, Path: "/api/v2/events"}))
		},
		"Forbidden": func() answered { return answerOf(clientsOnly.Get("/api/v2/events")) },
		"NotFound":  func() answered { return answerOf(a.Get("/api/v2/events/" + uuid.NewString())) },
		"BatchNotFound": func() answered {
			return answerOf(a.Get("/api/v2/availability?equipment_id=3f0c2a56-8f1e-4a57-9c36-1f1d1bb0f5a1&start=2026-05-01T00:00:00Z&end=2026-05-02T00:00:00Z"))
		},
		"IdempotencyConflict": func() answered {
			a.Do(http.MethodPost, "/api/v2/clients", map[string]any{"name": "Once"}, "Idempotency-Key", "examples-1")
			return answerOf(a.Do(http.MethodPost, "/api/v2/clients", map[string]any{"name": "Twice"}, "Idempotency-Key", "examples-1"))
		},
		"Conflict": func() answered {
			a.Post("/api/v2/equipment_reservations", window)
			return answerOf(a.Post("/api/v2/equipment_reservations", window))
		},
		"PayloadTooLarge": func() answered {
			return tooLarge(http.MethodPost, "/api/v2/clients")
		},
		"PreconditionFailed": func() answered {
			return answerOf(a.Do(http.MethodPatch, "/api/v2/clients/"+client, map[string]any{"notes": "x"}, "If-Match", `W/"x"`))
		},
		"UnsupportedMediaType": func() answered {
			return answerOf(a.Do(http.MethodPost, "/api/v2/clients", "{}", "Content-Type", "text/plain"))
		},
		"URITooLong": func() answered {
			return raw("GET /api/v2/clients?search=" + strings.Repeat("a", 8<<10) + " HTTP/1.1\r\nHost: test\r\n\r\n")
		},
		"HeadersTooLarge": func() answered {
			return raw("GET /api/v2/clients HTTP/1.1\r\nHost: test\r\nX-Pad: " + strings.Repeat("h", 16<<10) + "\r\n\r\n")
		},
		"AmbiguousFraming": func() answered {
			return raw("POST /api/v2/clients HTTP/1.1\r\nHost: test\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}")
		},
		"ValidationFailed": func() answered { return answerOf(a.Post("/api/v2/clients", map[string]any{})) },
		"TransitionUnprocessable": func() answered {
			list := a.Post("/api/v2/pick_lists", map[string]any{"name": "Order", "event_id": event}).Data()["id"].(string)
			return answerOf(a.Patch("/api/v2/pick_lists/"+list, map[string]any{"status": "complete"}))
		},
		"ReservationUnprocessable": func() answered {
			return answerOf(a.Post("/api/v2/equipment_reservations", map[string]any{"equipment_id": equipment, "quantity": 5,
				"start_date": "2026-06-01T08:00:00Z", "end_date": "2026-06-02T08:00:00Z"}))
		},
		"InternalError":      func() answered { return app("/api/v2/examples/panic") },
		"ServiceUnavailable": func() answered { return app("/api/v2/examples/database-down") },
	}
	// Examples whose case this test does not cause, and where it is held.
	notCaused := map[string]string{
		"RateLimited":   "a limit of its own: TestRateLimitedExamples",
		"CursorExpired": "a purged feed: api/changes TestAnExpiredCursorIsGone",
	}
	examples := apitest.ErrorExamples(t, false)
	for name := range cases {
		if _, ok := examples[name]; !ok {
			t.Errorf("the v2 document has no example of %s", name)
		}
	}
	for name, documented := range examples {
		t.Run(name, func(t *testing.T) {
			cause, ok := cases[name]
			if !ok {
				if _, held := notCaused[name]; !held {
					t.Fatalf("the example of %s has no case here: add one, or a reason to notCaused", name)
				}
				return
			}
			if got := cause(); !documented.Allows(got.status) || got.ErrorExample != documented.Example {
				t.Errorf("%d %+v\nthe document's example: %v %+v", got.status, got.ErrorExample, documented.Statuses, documented.Example)
			}
		})
	}
}

// TestRateLimitedExamples: the 429 examples are the server's words for
// the default limits (1000 a minute on v2, 100 on v1), caused here with
// limits of 2.
func TestRateLimitedExamples(t *testing.T) {
	env := apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.V2RateLimit, c.V1RateLimit = 2, 2 }))
	a := env.NewOrg("Limited")
	for _, tc := range []struct {
		version, path, limit string
	}{{"v2", "/api/v2/clients", "1000"}, {"v1", "/api/v1/equipment", "100"}} {
		example := apitest.ErrorExamples(t, tc.version == "v1")["RateLimited"].Example
		var last *apitest.Response
		for range 3 {
			last = a.Get(tc.path)
		}
		if want := strings.Replace(example.Message, tc.limit, "2", 1); last.Status != 429 || last.ErrorCode() != example.Code || last.ErrorMessage() != want {
			t.Errorf("%s: %d %q, want 429 %q (the document's %q with the limit of 2)", tc.version, last.Status, last.ErrorMessage(), want, example)
		}
	}
}
