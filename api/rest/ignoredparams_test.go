package rest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
)

// ignoredParamsApp serves a list that reads limit, cursor and status, a
// record that reads expand, a route that reads nothing, and a POST, with
// encoder (rest.Encode writes through the encoding plans, encoding/json
// through c.JSON: respond's two paths).
func ignoredParamsApp(encoder func(any) ([]byte, error)) *fiber.App {
	app := fiber.New(fiber.Config{JSONEncoder: encoder})
	v2 := app.Group("/api/v2", rest.TrackQueryReads)
	type thing struct {
		ID string `json:"id"`
	}
	v2.Get("/things", func(c *fiber.Ctx) error {
		q := rest.NewQuery(c)
		q.Raw("status")
		if rest.QueryGiven(c, "limit") {
			_ = rest.QueryValue(c, "limit")
		}
		_ = rest.QueryValue(c, "cursor")
		return rest.Page(c, []thing{{ID: "a"}}, nil)
	})
	v2.Get("/things/:id", func(c *fiber.Ctx) error {
		_ = rest.QueryValue(c, "expand")
		return rest.OK(c, thing{ID: c.Params("id")})
	})
	v2.Get("/unread", func(c *fiber.Ctx) error { return rest.OK(c, thing{ID: "u"}) })
	v2.Post("/things", func(c *fiber.Ctx) error { return rest.Created(c, thing{ID: "n"}) })
	v2.Get("/missing", func(c *fiber.Ctx) error { return fiber.ErrNotFound })
	app.Get("/untracked", func(c *fiber.Ctx) error { return rest.OK(c, thing{ID: "x"}) })
	return app
}

// TestGetAnswersNameIgnoredParameters: a GET's answer names, sorted and
// once each, the query parameters its handler did not read, beside data
// and pagination; it names none when every parameter was read, outside the
// tracked group, on writes and on errors.
func TestGetAnswersNameIgnoredParameters(t *testing.T) {
	long := strings.Repeat("x", 200)
	cases := []struct {
		name, method, target string
		want                 string // the whole body
	}{
		{"no query", "GET", "/api/v2/things", `{"data":[{"id":"a"}],"pagination":{"next_cursor":null,"has_more":false}}`},
		{"taken parameters only", "GET", "/api/v2/things?limit=5&status=open", `{"data":[{"id":"a"}],"pagination":{"next_cursor":null,"has_more":false}}`},
		{"a misspelt filter", "GET", "/api/v2/things?limit=5&stauts=open",
			`{"data":[{"id":"a"}],"pagination":{"next_cursor":null,"has_more":false},"warnings":[{"code":"ignored_parameters","details":{"parameters":["stauts"]}}]}`},
		{"sorted, a cache buster too", "GET", "/api/v2/things/7?zeta=1&_=123&expand=x&alpha",
			`{"data":{"id":"7"},"warnings":[{"code":"ignored_parameters","details":{"parameters":["_","alpha","zeta"]}}]}`},
		{"an empty name names nothing", "GET", "/api/v2/things/7?&=1&expand=", `{"data":{"id":"7"}}`},
		{"another route's parameter", "GET", "/api/v2/things/7?limit=1", `{"data":{"id":"7"},"warnings":[{"code":"ignored_parameters","details":{"parameters":["limit"]}}]}`},
		{"decoded and escaped", "GET", "/api/v2/things/7?%3Cb%3E=1", `{"data":{"id":"7"},"warnings":[{"code":"ignored_parameters","details":{"parameters":["\u003cb\u003e"]}}]}`},
		{"a long name is cut", "GET", "/api/v2/things/7?" + long, `{"data":{"id":"7"},"warnings":[{"code":"ignored_parameters","details":{"parameters":["` + long[:125] + `…"]}}]}`},
		{"a route that reads nothing", "GET", "/api/v2/unread?anything=1", `{"data":{"id":"u"},"warnings":[{"code":"ignored_parameters","details":{"parameters":["anything"]}}]}`},
		{"not valid UTF-8, named once", "GET", "/api/v2/unread?%FF=1&%FE=2", `{"data":{"id":"u"},"warnings":[{"code":"ignored_parameters","details":{"parameters":["�"]}}]}`},
		{"outside the tracked group", "GET", "/untracked?anything=1", `{"data":{"id":"x"}}`},
		{"a write", "POST", "/api/v2/things?anything=1", `{"data":{"id":"n"}}`},
	}
	encoders := map[string]func(any) ([]byte, error){"Encode": rest.Encode, "encoding/json": json.Marshal}
	for encName, encoder := range encoders {
		app := ignoredParamsApp(encoder)
		for _, tc := range cases {
			t.Run(encName+"/"+tc.name, func(t *testing.T) {
				res, err := app.Test(httptest.NewRequest(tc.method, tc.target, nil), -1)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(res.Body)
				if string(body) != tc.want {
					t.Errorf("%s %s:\n got %s\nwant %s", tc.method, tc.target, body, tc.want)
				}
				if !json.Valid(body) {
					t.Errorf("not JSON: %s", body)
				}
			})
		}
		t.Run(encName+"/an error", func(t *testing.T) {
			res, err := app.Test(httptest.NewRequest("GET", "/api/v2/missing?anything=1", nil), -1)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusNotFound || strings.Contains(string(body), "warnings") {
				t.Errorf("%d %s, want a 404 without warnings", res.StatusCode, body)
			}
		})
	}
}

// TestManyIgnoredParametersAreCut: the warning names the first 100, sorted.
func TestManyIgnoredParametersAreCut(t *testing.T) {
	var q []string
	for i := range 150 {
		q = append(q, fmt.Sprintf("p%03d=1", i))
	}
	res, err := ignoredParamsApp(rest.Encode).Test(httptest.NewRequest("GET", "/api/v2/things/7?"+strings.Join(q, "&"), nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Warnings []struct {
			Details struct{ Parameters []string }
		}
	}
	if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if len(got.Warnings) != 1 {
		t.Fatalf("%d warnings, want 1", len(got.Warnings))
	}
	names := got.Warnings[0].Details.Parameters
	if len(names) != 100 || names[0] != "p000" || names[99] != "p099" {
		t.Errorf("%d names, %q .. %q; want p000 .. p099", len(names), names[0], names[len(names)-1])
	}
}
