package client

import (
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/openapi"
)

// TestDeclaredHeaders holds declaredHeaders equal to the response headers
// the served v2 and v1 documents declare, and to what the generated code
// binds (its name, type and format for each), so that a header added to
// a document is not left for the generated parser to fail on.
func TestDeclaredHeaders(t *testing.T) {
	v2, err := openapi.JSON()
	if err != nil {
		t.Fatal(err)
	}
	v1, err := openapi.V1JSON(time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	documents := map[string]headerFormat{}
	for _, doc := range [][]byte{v2, v1} {
		responseHeaders(t, doc, documents)
	}
	if !maps.Equal(documents, declaredHeaders) {
		t.Errorf("declaredHeaders = %v,\nthe documents declare %v", declaredHeaders, documents)
	}
	bind := regexp.MustCompile(`BindStyledParameterWithOptions\("simple", "([^"]+)", values\[0\].*Type: "([^"]*)", Format: "([^"]*)"`)
	for _, file := range []string{"eventapi.gen.go", "v1/eventapi_v1.gen.go"} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		generated := map[string]headerFormat{}
		for _, m := range bind.FindAllStringSubmatch(string(src), -1) {
			generated[m[1]] = headerFormat{m[2], m[3]}
		}
		if len(generated) == 0 {
			t.Fatalf("%s: no header binding found (has the generated code changed shape?)", file)
		}
		for name, f := range generated {
			if declaredHeaders[name] != f {
				t.Errorf("%s binds %s as %v, declaredHeaders says %v", file, name, f, declaredHeaders[name])
			}
		}
	}
}

// responseHeaders adds to into the headers that doc declares on responses
// (components/headers and each response's, inline or by $ref), failing
// the test on a name declared with two formats.
func responseHeaders(t *testing.T, doc []byte, into map[string]headerFormat) {
	t.Helper()
	type schema struct {
		Type   any    `json:"type"`
		Format string `json:"format"`
	}
	type header struct {
		Ref    string `json:"$ref"`
		Schema schema `json:"schema"`
	}
	type response struct {
		Headers map[string]header `json:"headers"`
	}
	var d struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Headers   map[string]header   `json:"headers"`
			Responses map[string]response `json:"responses"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	add := func(where, name string, h header) {
		if h.Ref != "" {
			c, ok := d.Components.Headers[strings.TrimPrefix(h.Ref, "#/components/headers/")]
			if !ok {
				t.Errorf("%s: header %s: unresolved $ref %s", where, name, h.Ref)
				return
			}
			h = c
		}
		typ, ok := h.Schema.Type.(string)
		if !ok {
			t.Errorf("%s: header %s: schema type %v is not one type", where, name, h.Schema.Type)
			return
		}
		f := headerFormat{typ, h.Schema.Format}
		if prev, ok := into[name]; ok && prev != f {
			t.Errorf("%s: header %s declared as %v and as %v", where, name, prev, f)
		}
		into[name] = f
	}
	for name, h := range d.Components.Headers {
		add("components/headers", name, h)
	}
	for rname, r := range d.Components.Responses {
		for name, h := range r.Headers {
			add("components/responses/"+rname, name, h)
		}
	}
	for path, item := range d.Paths {
		for method, raw := range item {
			var op struct {
				Responses map[string]response `json:"responses"`
			}
			if json.Unmarshal(raw, &op) != nil { // "parameters", not an operation
				continue
			}
			for status, r := range op.Responses {
				for name, h := range r.Headers {
					add(method+" "+path+" "+status, name, h)
				}
			}
		}
	}
}

// TestHeaderBinds: a value binds as the generated code binds it.
func TestHeaderBinds(t *testing.T) {
	uuid, integer, dateTime := headerFormat{"string", "uuid"}, headerFormat{"integer", ""}, headerFormat{"string", "date-time"}
	boolean, text := headerFormat{"boolean", ""}, headerFormat{"string", ""}
	for _, c := range []struct {
		f     headerFormat
		value string
		binds bool
	}{
		{uuid, "0193b3b4-4d2c-7c1e-9a55-6f3e2d1c0b9a", true},
		{uuid, "a1b2c3d4-gw-7f3a", false}, // a gateway's own request id
		{uuid, "", false},
		{integer, "100", true},
		{integer, "100, 100;w=60", false}, // Envoy's IETF draft RateLimit-Limit
		{integer, "99999999999999999999", false},
		{dateTime, "2026-12-06T03:00:00Z", true},
		{dateTime, "Sun, 06 Dec 2026 03:00:00 GMT", false},
		{dateTime, "1796526000", false},
		{boolean, "true", true},
		{boolean, "@1688169599", false}, // RFC 9745's Deprecation date
		{text, `W/"abc"`, true},
		{text, "", false},
	} {
		if got := c.f.binds(c.value); got != c.binds {
			t.Errorf("%v binds %q = %v, want %v", c.f, c.value, got, c.binds)
		}
	}
}

// TestSetAside: of a declared header's values, those that would not bind
// move to X-Unbound-<name>, the others stay in order; other headers are
// left alone.
func TestSetAside(t *testing.T) {
	h := http.Header{}
	h.Add("X-Request-Id", "a1b2c3d4-gw-7f3a")
	h.Add("X-Request-Id", "0193b3b4-4d2c-7c1e-9a55-6f3e2d1c0b9a")
	h.Set("X-RateLimit-Limit", "100, 100;w=60")
	h.Set("X-RateLimit-Remaining", "99")
	h.Set("X-Gateway", "not declared")
	setAside(h)
	want := http.Header{
		"X-Request-Id":                []string{"0193b3b4-4d2c-7c1e-9a55-6f3e2d1c0b9a"},
		"X-Unbound-X-Request-Id":      []string{"a1b2c3d4-gw-7f3a"},
		"X-Unbound-X-Ratelimit-Limit": []string{"100, 100;w=60"},
		"X-Ratelimit-Remaining":       []string{"99"},
		"X-Gateway":                   []string{"not declared"},
	}
	if !maps.EqualFunc(h, want, slices.Equal) {
		t.Errorf("after setAside: %v, want %v", h, want)
	}
}
