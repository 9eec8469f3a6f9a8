package v1_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestErrorExamplesAreWhatTheServerSends: each error response of the v1
// document shows, as its example, the code and message the server answers
// it with, its case caused for real here (three examples once carried
// messages the server had stopped sending). A new example needs a case, or
// a reason in notCaused.
func TestErrorExamplesAreWhatTheServerSends(t *testing.T) {
	examples := apitest.ErrorExamples(t, true)
	env := apitest.New(t)
	base := env.Listen(t)
	a := env.NewOrg("Examples")
	equip := fix(t, env, a).equipment(equipment{name: "Truss"})
	jobsOnly := env.NewKey(a.ID, apikey.Live, tenancy.JobsRead)
	type request struct{ method, path, key, contentType, body, ifMatch string }
	item := "/api/v1/equipment/" + equip
	cases := map[string]request{
		"BadRequest":           {"PATCH", item, a.Key, "application/json", `{"weight_lbs": -1}`, ""},
		"Unauthorized":         {"GET", "/api/v1/equipment", "", "", "", ""},
		"Forbidden":            {"GET", "/api/v1/equipment", jobsOnly, "", "", ""},
		"NotFound":             {"GET", "/api/v1/equipment/" + uuid.NewString(), a.Key, "", "", ""},
		"PreconditionFailed":   {"PATCH", item, a.Key, "application/json", `{"weight_lbs": 2}`, `"x"`},
		"PayloadTooLarge":      {"PATCH", item, a.Key, "application/json", `{"name":"` + strings.Repeat("x", 1<<20) + `"}`, ""},
		"UnsupportedMediaType": {"PATCH", item, a.Key, "text/plain", `{"weight_lbs": 2}`, ""},
	}
	// Examples whose case this test does not cause, and why.
	notCaused := map[string]string{
		"RateLimited":        "a limit of its own: api/server TestRateLimitedExamples",
		"ServerError":        "no v1 route fails by design; every v1 internal error gets this text (api/rest/errors.go)",
		"ServiceUnavailable": "v1 has no route of a test's own to fail on",
	}
	for name, want := range examples {
		c, ok := cases[name]
		if !ok {
			if _, held := notCaused[name]; !held {
				t.Errorf("the example of %s has no case here: add one, or a reason to notCaused", name)
			}
			continue
		}
		req, err := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if c.key != "" {
			req.Header.Set("Authorization", "Bearer "+c.key)
		}
		if c.contentType != "" {
			req.Header.Set("Content-Type", c.contentType)
		}
		if c.ifMatch != "" {
			req.Header.Set("If-Match", c.ifMatch)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got struct{ Error apitest.ErrorExample }
		err = json.NewDecoder(res.Body).Decode(&got)
		res.Body.Close()
		if err != nil || res.StatusCode < http.StatusBadRequest {
			t.Errorf("%s: %d, %v", name, res.StatusCode, err)
			continue
		}
		if got.Error != want {
			t.Errorf("%s: the server answers %+v, the document's example is %+v", name, got.Error, want)
		}
	}
	for name := range cases {
		if _, ok := examples[name]; !ok {
			t.Errorf("the v1 document has no example of %s", name)
		}
	}
}
