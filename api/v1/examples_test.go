package v1_test

import (
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestErrorExamplesAreWhatTheServerSends: each error response of the v1
// document shows, as its example, the code and message the server answers
// it with, under a status the document gives it, its case caused here
// (three examples once carried messages the server had stopped sending,
// and ServiceUnavailable's one it never sent). A new example needs a case,
// or a reason in notCaused.
func TestErrorExamplesAreWhatTheServerSends(t *testing.T) {
	examples := apitest.ErrorExamples(t, true)
	env := apitest.New(t)
	base := env.Listen(t)
	a := env.NewOrg("Examples")
	equip := fix(t, env, a).equipment(equipment{name: "Truss"})
	jobsOnly := env.NewKey(a.ID, apikey.Live, tenancy.JobsRead)
	type request struct{ method, path, key, contentType, body, ifMatch string }
	item := "/api/v1/equipment/" + equip
	send := func(c request) (int, apitest.ErrorExample) {
		req, err := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range map[string]string{"Authorization": "Bearer " + c.key, "Content-Type": c.contentType, "If-Match": c.ifMatch} {
			if v != "" && v != "Bearer " {
				req.Header.Set(name, v)
			}
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		defer res.Body.Close()
		var got struct{ Error apitest.ErrorExample }
		if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
			t.Errorf("%s %s: %d, %v", c.method, c.path, res.StatusCode, err)
		}
		return res.StatusCode, got.Error
	}
	get := request{"GET", item, a.Key, "", "", ""}
	cases := map[string]func() (int, apitest.ErrorExample){
		"BadRequest": func() (int, apitest.ErrorExample) {
			return send(request{"PATCH", item, a.Key, "application/json", `{"weight_lbs": -1}`, ""})
		},
		"Unauthorized": func() (int, apitest.ErrorExample) { return send(request{"GET", "/api/v1/equipment", "", "", "", ""}) },
		"Forbidden": func() (int, apitest.ErrorExample) {
			return send(request{"GET", "/api/v1/equipment", jobsOnly, "", "", ""})
		},
		"NotFound": func() (int, apitest.ErrorExample) {
			return send(request{"GET", "/api/v1/equipment/" + uuid.NewString(), a.Key, "", "", ""})
		},
		"PreconditionFailed": func() (int, apitest.ErrorExample) {
			return send(request{"PATCH", item, a.Key, "application/json", `{"weight_lbs": 2}`, `"x"`})
		},
		"PayloadTooLarge": func() (int, apitest.ErrorExample) {
			return send(request{"PATCH", item, a.Key, "application/json", `{"name":"` + strings.Repeat("x", 1<<20) + `"}`, ""})
		},
		"UnsupportedMediaType": func() (int, apitest.ErrorExample) {
			return send(request{"PATCH", item, a.Key, "text/plain", `{"weight_lbs": 2}`, ""})
		},
		// A 500 needs a bug, which the server has none of on purpose: the
		// server's own error handler answers a v1 route's unexpected error.
		"ServerError": func() (int, apitest.ErrorExample) {
			app := fiber.New(fiber.Config{ErrorHandler: rest.ErrorHandler(slog.New(slog.DiscardHandler))})
			app.Get("/api/v1/equipment/:id", func(*fiber.Ctx) error { return errors.New("a bug") })
			res, err := app.Test(httptest.NewRequest(http.MethodGet, item, nil))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var got struct{ Error apitest.ErrorExample }
			if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
				t.Fatal(err)
			}
			return res.StatusCode, got.Error
		},
		// The database refuses connections (the key is cached).
		"ServiceUnavailable": func() (int, apitest.ErrorExample) {
			if status, _ := send(get); status != 200 {
				t.Fatalf("warm-up: %d", status)
			}
			defer env.RefuseDatabase(t)()
			return send(get)
		},
	}
	// Examples whose case this test does not cause, and where it is held.
	notCaused := map[string]string{
		"RateLimited": "a limit of its own: api/server TestRateLimitedExamples",
	}
	// The database's outage last: the pool's connections come back on
	// their own, but not at once.
	last := []string{"ServiceUnavailable"}
	names := slices.Sorted(maps.Keys(examples))
	names = append(slices.DeleteFunc(names, func(n string) bool { return slices.Contains(last, n) }), last...)
	for _, name := range names {
		documented := examples[name]
		cause, ok := cases[name]
		if !ok {
			if _, held := notCaused[name]; !held {
				t.Errorf("the example of %s has no case here: add one, or a reason to notCaused", name)
			}
			continue
		}
		status, got := cause()
		if !documented.Allows(status) || got != documented.Example {
			t.Errorf("%s: the server answers %d %+v, the document's example is %v %+v", name, status, got, documented.Statuses, documented.Example)
		}
	}
	for name := range cases {
		if _, ok := examples[name]; !ok {
			t.Errorf("the v1 document has no example of %s", name)
		}
	}
}
