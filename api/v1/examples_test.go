package v1_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestErrorExamplesAreWhatTheServerSends: each error response of the v1
// document whose cause a test can bring about shows, as its example, the
// code and message the server answers it with (three examples carried
// messages the server had stopped sending).
func TestErrorExamplesAreWhatTheServerSends(t *testing.T) {
	doc, err := openapi.V1JSON(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Components struct {
			Responses map[string]struct {
				Content map[string]struct {
					Example struct {
						Error struct{ Code, Message string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	env := apitest.New(t)
	base := env.Listen(t)
	a := env.NewOrg("Examples")
	equip := fix(t, env, a).equipment(equipment{name: "Truss"})
	jobsOnly := env.NewKey(a.ID, apikey.Live, tenancy.JobsRead)
	type request struct{ method, path, key, contentType, body string }
	item := "/api/v1/equipment/" + equip
	cases := []struct {
		response string
		req      request
	}{
		{"BadRequest", request{"PATCH", item, a.Key, "application/json", `{"weight_lbs": -1}`}},
		{"Unauthorized", request{"GET", "/api/v1/equipment", "", "", ""}},
		{"Forbidden", request{"GET", "/api/v1/equipment", jobsOnly, "", ""}},
		{"NotFound", request{"GET", "/api/v1/equipment/" + uuid.NewString(), a.Key, "", ""}},
		{"PayloadTooLarge", request{"PATCH", item, a.Key, "application/json", `{"name":"` + strings.Repeat("x", 1<<20) + `"}`}},
		{"UnsupportedMediaType", request{"PATCH", item, a.Key, "text/plain", `{"weight_lbs": 2}`}},
	}
	for _, c := range cases {
		resp, ok := d.Components.Responses[c.response]
		if !ok {
			t.Errorf("the v1 document has no response %s", c.response)
			continue
		}
		want := resp.Content["application/json"].Example.Error
		req, err := http.NewRequest(c.req.method, base+c.req.path, strings.NewReader(c.req.body))
		if err != nil {
			t.Fatal(err)
		}
		if c.req.key != "" {
			req.Header.Set("Authorization", "Bearer "+c.req.key)
		}
		if c.req.contentType != "" {
			req.Header.Set("Content-Type", c.req.contentType)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.response, err)
		}
		var got struct {
			Error struct{ Code, Message string }
		}
		err = json.NewDecoder(res.Body).Decode(&got)
		res.Body.Close()
		if err != nil || res.StatusCode < http.StatusBadRequest {
			t.Errorf("%s: %d, %v", c.response, res.StatusCode, err)
			continue
		}
		if got.Error != want {
			t.Errorf("%s: the server answers %+v, the document's example is %+v", c.response, got.Error, want)
		}
	}
}
