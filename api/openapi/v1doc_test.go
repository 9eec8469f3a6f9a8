package openapi_test

import (
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/openapi"
)

// TestV1DocumentIsServedDeprecated: /api/v1/openapi.json is public, carries
// the Deprecation and Sunset headers, marks every operation deprecated and
// states the configured Sunset date (not the default written in v1.yaml).
func TestV1DocumentIsServedDeprecated(t *testing.T) {
	sunset := time.Date(2027, 9, 1, 0, 0, 0, 0, time.UTC)
	app := fiber.New()
	openapi.V1Routes(app, sunset)
	res, err := app.Test(httptest.NewRequest("GET", openapi.V1DocumentPath, nil))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || res.Header.Get("Deprecation") != "true" ||
		res.Header.Get("Sunset") != "Wed, 01 Sep 2027 00:00:00 GMT" {
		t.Fatalf("status %d, Deprecation %q, Sunset %q", res.StatusCode, res.Header.Get("Deprecation"), res.Header.Get("Sunset"))
	}
	var d struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Sunset string `json:"x-sunset"`
		} `json:"info"`
		Servers []struct{ URL string } `json:"servers"`
		Paths   map[string]map[string]json.RawMessage
	}
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatal(err)
	}
	if d.OpenAPI != "3.1.0" || d.Info.Sunset != "2027-09-01" || len(d.Servers) != 1 || d.Servers[0].URL != "/api/v1" {
		t.Fatalf("openapi %q, x-sunset %q, servers %+v", d.OpenAPI, d.Info.Sunset, d.Servers)
	}
	ops := 0
	for path, item := range d.Paths {
		for method, raw := range item {
			if method == "parameters" {
				continue
			}
			var op struct{ Deprecated bool }
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			if !op.Deprecated {
				t.Errorf("%s %s is not marked deprecated", method, path)
			}
			ops++
		}
	}
	if ops != 7 {
		t.Errorf("%d v1 operations documented, want 7", ops)
	}
}

// TestChangelogNamesTheDocumentVersion: docs/changelog.md starts with the
// version the v2 document declares, so a bump is never undocumented.
func TestChangelogNamesTheDocumentVersion(t *testing.T) {
	log, err := os.ReadFile("../../docs/changelog.md")
	if err != nil {
		t.Fatal(err)
	}
	first := regexp.MustCompile(`(?m)^## ([0-9]+\.[0-9]+\.[0-9]+)`).FindSubmatch(log)
	var d struct{ Info struct{ Version string } }
	if err := json.Unmarshal(openapi.MustJSON(), &d); err != nil {
		t.Fatal(err)
	}
	if first == nil || string(first[1]) != d.Info.Version {
		t.Fatalf("docs/changelog.md starts with %q, the document is %s", first, d.Info.Version)
	}
}
