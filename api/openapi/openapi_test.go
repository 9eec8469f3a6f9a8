package openapi_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	eventsapi "github.com/eventapi/eventapi/api/events"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/etag"
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/api/storage/equipment"
	"github.com/eventapi/eventapi/api/storage/events"
	"github.com/eventapi/eventapi/api/storage/invoices"
	"github.com/eventapi/eventapi/api/storage/picklists"
	"github.com/eventapi/eventapi/api/storage/quotes"
	"github.com/eventapi/eventapi/api/storage/reservations"
	"github.com/eventapi/eventapi/api/storage/vehicles"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// doc is the subset of the document the structural tests read.
type doc struct {
	OpenAPI string `json:"openapi"`
	Info    struct {
		Version string `json:"version"`
	} `json:"info"`
	Servers []struct {
		URL string `json:"url"`
	} `json:"servers"`
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Schemas    map[string]schema    `json:"schemas"`
		Responses  map[string]response  `json:"responses"`
		Parameters map[string]parameter `json:"parameters"`
	} `json:"components"`
}

type schema struct {
	Enum       []any                      `json:"enum"`
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

func loadSchemas(t *testing.T) map[string]schema {
	t.Helper()
	return load(t).Components.Schemas
}

type parameter struct {
	Schema struct {
		Items schema `json:"items"`
	} `json:"schema"`
}

type response struct {
	Ref     string                     `json:"$ref"`
	Headers map[string]json.RawMessage `json:"headers"`
}

type operation struct {
	OperationID    string                 `json:"operationId"`
	Summary        string                 `json:"summary"`
	Tags           []string               `json:"tags"`
	Security       *[]map[string][]string `json:"security"`
	RequiredScopes *[]string              `json:"x-required-scopes"`
	AlsoRequired   []string               `json:"x-also-required-scopes"`
	RequestBody    json.RawMessage        `json:"requestBody"`
	Parameters     []struct {
		Ref string `json:"$ref"`
	} `json:"parameters"`
	Responses map[string]response `json:"responses"`
}

func load(t *testing.T) doc {
	t.Helper()
	b, err := openapi.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var d doc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// operations returns every operation keyed "METHOD path".
func operations(t *testing.T, d doc) map[string]operation {
	t.Helper()
	out := map[string]operation{}
	for path, item := range d.Paths {
		for method, raw := range item {
			switch method {
			case "get", "post", "patch", "put", "delete":
			default:
				continue
			}
			var op operation
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			out[strings.ToUpper(method)+" "+path] = op
		}
	}
	return out
}

func TestDocumentHeader(t *testing.T) {
	d := load(t)
	if d.OpenAPI != "3.1.0" || d.Info.Version != "2.19.7" {
		t.Errorf("openapi %q version %q, want 3.1.0 and 2.19.7", d.OpenAPI, d.Info.Version)
	}
	// The chart installs the version the document describes: its
	// appVersion is the default image tag.
	chart, err := os.ReadFile("../../charts/eventapi/Chart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if want := "\nappVersion: \"" + d.Info.Version + "\"\n"; !strings.Contains(string(chart), want) {
		t.Errorf("charts/eventapi/Chart.yaml lacks %q: the chart's appVersion must follow info.version", strings.TrimSpace(want))
	}
	if len(d.Servers) != 1 || d.Servers[0].URL != "/api/v2" {
		t.Errorf("servers = %+v, want one /api/v2", d.Servers)
	}
	if n := len(operations(t, d)); n < 45 {
		t.Errorf("only %d operations documented", n)
	}
}

// TestEveryOperationIsComplete checks what every operation must state: an
// operationId (unique), a summary, a tag, its scopes (security requirements
// that are exactly those x-required-scopes and x-also-required-scopes
// describe, naming known scopes) and the error responses its kind of
// operation can produce.
func TestEveryOperationIsComplete(t *testing.T) {
	d := load(t)
	ids := map[string]string{}
	for key, op := range operations(t, d) {
		t.Run(key, func(t *testing.T) {
			method, path, _ := strings.Cut(key, " ")
			if op.OperationID == "" {
				t.Error("no operationId")
			} else if other, dup := ids[op.OperationID]; dup {
				t.Errorf("operationId %s also used by %s", op.OperationID, other)
			}
			ids[op.OperationID] = key
			if op.Summary == "" || len(op.Tags) == 0 {
				t.Error("no summary or tag")
			}
			if op.Security == nil || op.RequiredScopes == nil {
				t.Fatal("security and x-required-scopes must be stated on every operation")
			}
			public := len(*op.Security) == 0
			if answersRecord(method, path) != (op.AlsoRequired != nil) {
				t.Errorf("x-also-required-scopes %v: a PATCH or a POST on a record (it answers the record) states its read scopes there, no other operation does", op.AlsoRequired)
			}
			reqs, wantReqs := securitySets(*op.Security), scopeSets(*op.RequiredScopes, op.AlsoRequired)
			if !slices.Equal(reqs, wantReqs) {
				t.Errorf("security requirements %v, want %v (x-required-scopes %v, x-also-required-scopes %v)", reqs, wantReqs, *op.RequiredScopes, op.AlsoRequired)
			}
			for _, s := range append(slices.Clone(*op.RequiredScopes), op.AlsoRequired...) {
				if !tenancy.Scope(s).Valid() {
					t.Errorf("unknown scope %q", s)
				}
			}
			for code, r := range op.Responses {
				if r.Ref == "" && r.Headers["X-Request-Id"] == nil {
					t.Errorf("response %s does not document X-Request-Id", code)
				}
			}
			if public {
				return
			}
			// 415: a compressed body is refused whatever the method, a
			// GET's or a DELETE's too (jsonBody in api/server/refuse.go).
			want := []string{"401", "415", "429", "500", "503"}
			if len(*op.RequiredScopes) > 0 {
				want = append(want, "403")
			}
			if method == "GET" && len(*op.RequiredScopes) > 0 {
				want = append(want, "422") // limit, cursor, filters or expand
			}
			if strings.Contains(path, "{id}") {
				want = append(want, "404")
			}
			if op.RequestBody != nil {
				want = append(want, "400", "413", "422")
			}
			if method != "GET" {
				want = append(want, "409", "422")
				if !hasParam(op, "IdempotencyKey") {
					t.Error("write without the Idempotency-Key parameter")
				}
			}
			for _, code := range want {
				if _, ok := op.Responses[code]; !ok {
					t.Errorf("no %s response", code)
				}
			}
		})
	}
}

// answersRecord reports whether an operation writes to an existing record
// and answers its state (a PATCH, a POST on a path with a parameter such as
// a delivery retry): it needs a read scope as well as the write scope.
func answersRecord(method, path string) bool {
	return method == "PATCH" || (method == "POST" && strings.Contains(path, "{"))
}

// securitySets lists the security requirements, each as its sorted scopes
// joined by "+", sorted; a requirement naming no scope (a key, any scope)
// is left out.
func securitySets(reqs []map[string][]string) []string {
	var out []string
	for _, req := range reqs {
		for _, scopes := range req {
			if len(scopes) > 0 {
				out = append(out, strings.Join(sorted(scopes), "+"))
			}
		}
	}
	return sorted(out)
}

// scopeSets is what securitySets must give: one requirement per accepted
// scope, or, with also-required scopes, one per pair of an accepted scope
// and an also-required one (OpenAPI: the scopes within one requirement are
// all needed, the requirements are alternatives).
func scopeSets(required, also []string) []string {
	var out []string
	for _, r := range required {
		if len(also) == 0 {
			out = append(out, r)
		}
		for _, a := range also {
			out = append(out, strings.Join(sorted([]string{r, a}), "+"))
		}
	}
	return sorted(out)
}

func hasParam(op operation, name string) bool {
	for _, p := range op.Parameters {
		if strings.HasSuffix(p.Ref, "/"+name) {
			return true
		}
	}
	return false
}

func sorted(s []string) []string {
	c := slices.Clone(s)
	sort.Strings(c)
	return slices.Compact(c)
}

// TestReadsDeclareRevalidation checks that every 200 and 304 of an
// authenticated GET declares the headers the etag middleware sends with
// them: ETag, required, and Cache-Control, whose value, etag.CacheControl,
// is the component's one enum value. Cache-Control is not required yet:
// the synthetic exchanges of api/apitest's contract tests do not send it.
func TestReadsDeclareRevalidation(t *testing.T) {
	d := load(t)
	b, err := openapi.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var headers struct {
		Components struct {
			Headers map[string]struct {
				Required bool `json:"required"`
				Schema   struct {
					Enum []string `json:"enum"`
				} `json:"schema"`
			} `json:"headers"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &headers); err != nil {
		t.Fatal(err)
	}
	if h, ok := headers.Components.Headers["ETag"]; !ok || !h.Required {
		t.Error("components.headers.ETag missing or not required")
	}
	if got := headers.Components.Headers["Cache-Control"].Schema.Enum; !slices.Equal(got, []string{etag.CacheControl}) {
		t.Errorf("components.headers.Cache-Control enum %q, want [%q]", got, etag.CacheControl)
	}
	for key, op := range operations(t, d) {
		if !strings.HasPrefix(key, "GET ") || op.Security == nil || len(*op.Security) == 0 {
			continue // the public documents revalidate with their own headers
		}
		for _, code := range []string{"200", "304"} {
			r, ok := op.Responses[code]
			if !ok {
				t.Errorf("%s: no %s response", key, code)
				continue
			}
			if r.Ref != "" {
				r = d.Components.Responses[strings.TrimPrefix(r.Ref, "#/components/responses/")]
			}
			for _, name := range []string{"ETag", "Cache-Control"} {
				if want := `{"$ref":"#/components/headers/` + name + `"}`; string(r.Headers[name]) != want {
					t.Errorf("%s %s: header %s is %s, want %s", key, code, name, r.Headers[name], want)
				}
			}
		}
	}
}

// TestEnumsMatchTheCode ties the document's enums to the values the code
// uses, so neither can drift alone.
func TestEnumsMatchTheCode(t *testing.T) {
	d := load(t)
	codes := []errs.Code{errs.MalformedJSON, errs.BadRequest, errs.InvalidCredentials, errs.InsufficientScope, errs.NotFound,
		errs.MethodNotAllowed, errs.DuplicateRecord, errs.IdempotencyKeyMismatch, errs.IdempotencyKeyInUse,
		errs.PayloadTooLarge, errs.URITooLong, errs.UnsupportedMediaType, errs.HeadersTooLarge, errs.RequestTimeout, errs.Validation, errs.InvalidTransition, errs.OverbookBlocked,
		errs.OverbookReasonRequired, errs.RateLimited, errs.CursorExpired, errs.PreconditionFailed, errs.Internal, errs.ServiceUnavailable}
	var scopes []string
	for _, s := range tenancy.AllScopes {
		scopes = append(scopes, string(s))
	}
	for name, want := range map[string][]string{
		"ErrorCode":         strs(codes),
		"Scope":             scopes,
		"EventStatus":       events.Statuses,
		"QuoteStatus":       quotes.Statuses,
		"InvoiceStatus":     invoices.Statuses,
		"ReservationStatus": reservations.Statuses,
		"CostOwnership":     reservations.CostOwnerships,
		"VehicleStatus":     vehicles.Statuses,
		"EquipmentStatus":   equipment.Statuses,
		"CaseType":          equipment.CaseTypes,
		"PickListStatus":    picklists.Statuses,
		"PickListStage":     picklists.Stages,
	} {
		s, ok := d.Components.Schemas[name]
		if !ok {
			t.Errorf("no schema %s", name)
			continue
		}
		if got := strs(s.Enum); !slices.Equal(sorted(got), sorted(want)) {
			t.Errorf("%s enum = %v, want %v", name, got, want)
		}
	}
}

// TestExpansionsMatchTheCode ties each expand parameter's values to the
// relations its handlers accept.
func TestExpansionsMatchTheCode(t *testing.T) {
	d := load(t)
	for name, want := range map[string][]string{
		"EquipmentExpand":   {"category"},
		"ReservationExpand": reservations.Expansions,
		"DocumentExpand":    documents.Expansions,
		"PickListExpand":    picklists.Expansions,
		"EventExpand":       eventsapi.Expansions,
	} {
		p, ok := d.Components.Parameters[name]
		if !ok {
			t.Errorf("no parameter %s", name)
			continue
		}
		if got := strs(p.Schema.Items.Enum); !slices.Equal(sorted(got), sorted(want)) {
			t.Errorf("%s values = %v, want %v", name, got, want)
		}
	}
}

func strs[T any](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprint(x)
	}
	return out
}

func TestYAMLAndJSONAreTheSameDocument(t *testing.T) {
	b, err := openapi.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if len(openapi.YAML()) == 0 || !json.Valid(b) {
		t.Fatal("empty YAML or invalid JSON")
	}
	again, _ := openapi.JSON()
	if &again[0] != &b[0] {
		t.Error("JSON is converted again on every call; want one cached conversion")
	}
}

// newApp serves the documentation routes with the service's error handler.
func newApp() *fiber.App {
	app := fiber.New(fiber.Config{ErrorHandler: rest.ErrorHandler(slog.New(slog.DiscardHandler))})
	openapi.Routes(app)
	return app
}

func TestRoutes(t *testing.T) {
	app := newApp()
	doc, _ := openapi.JSON()
	for _, tc := range []struct {
		path, contentType string
		status            int
		contains          string
	}{
		{openapi.DocumentPath, "application/json", 200, `"openapi":"3.1.0"`},
		{openapi.ReferencePath, "text/html", 200, `<redoc spec-url="/api/v2/openapi.json"`},
		{openapi.AssetsPath + "/redoc.standalone.js", "text/javascript", 200, "Redoc"},
		{openapi.AssetsPath + "/reference.css", "text/css", 200, "body"},
		{openapi.AssetsPath + "/nope.js", "", 404, ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			res, err := app.Test(httptest.NewRequest("GET", tc.path, nil))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", res.StatusCode, tc.status)
			}
			if !strings.HasPrefix(res.Header.Get("Content-Type"), tc.contentType) {
				t.Errorf("Content-Type %q, want %q", res.Header.Get("Content-Type"), tc.contentType)
			}
			if !strings.Contains(string(body), tc.contains) {
				t.Errorf("body lacks %q", tc.contains)
			}
			if tc.path == openapi.DocumentPath && string(body) != string(doc) {
				t.Error("served document differs from JSON()")
			}
		})
	}
}

// TestReferencePageLoadsNothingFromElsewhere: every src/href of the page is
// served by the API, and the CSP forbids other origins.
func TestReferencePageLoadsNothingFromElsewhere(t *testing.T) {
	app := newApp()
	res, err := app.Test(httptest.NewRequest("GET", openapi.ReferencePath, nil))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	for _, attr := range []string{`src="`, `href="`, `spec-url="`} {
		for _, part := range strings.Split(string(body), attr)[1:] {
			u := part[:strings.IndexByte(part, '"')]
			if !strings.HasPrefix(u, "/api/v2/") && u != "data:," {
				t.Errorf("the page loads %q from outside the API", u)
			}
		}
	}
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "http") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("CSP %q allows other origins or eval", csp)
	}
}

// TestAssetsServedWhole: each asset is served byte for byte as the file it
// is built from, with its length, and its ETag answers 304.
func TestAssetsServedWhole(t *testing.T) {
	app := newApp()
	for _, name := range []string{"redoc.standalone.js", "reference.css", "redoc.LICENSE"} {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("assets", name))
			if err != nil {
				t.Fatal(err)
			}
			res, err := app.Test(httptest.NewRequest("GET", openapi.AssetsPath+"/"+name, nil))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(res.Body)
			if res.StatusCode != 200 || !bytes.Equal(got, want) || res.ContentLength != int64(len(want)) {
				t.Fatalf("status %d, %d bytes (Content-Length %d), want 200 and the file's %d bytes",
					res.StatusCode, len(got), res.ContentLength, len(want))
			}
			etag := res.Header.Get("ETag")
			req := httptest.NewRequest("GET", openapi.AssetsPath+"/"+name, nil)
			req.Header.Set("If-None-Match", etag)
			if res, err := app.Test(req); err != nil || res.StatusCode != 304 || etag == "" {
				t.Fatalf("If-None-Match %q: %v %v, want 304", etag, res.StatusCode, err)
			}
		})
	}
}

// TestAssetGzipped: a large asset is sent gzipped (once compressed, kept)
// to a client that accepts it, and gunzips to the file; a small one is sent
// as it is.
func TestAssetGzipped(t *testing.T) {
	app := newApp()
	for _, tt := range []struct {
		name    string
		gzipped bool
	}{{"redoc.standalone.js", true}, {"redoc.standalone.js", true}, {"reference.css", false}} {
		want, err := os.ReadFile(filepath.Join("assets", tt.name))
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest("GET", openapi.AssetsPath+"/"+tt.name, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		res, err := app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(res.Body)
		if (res.Header.Get("Content-Encoding") == "gzip") != tt.gzipped {
			t.Fatalf("%s: Content-Encoding %q", tt.name, res.Header.Get("Content-Encoding"))
		}
		if tt.gzipped {
			if len(got) > len(want)/3 || res.Header.Get("Vary") != "Accept-Encoding" {
				t.Errorf("%s: %d bytes gzipped to %d, Vary %q", tt.name, len(want), len(got), res.Header.Get("Vary"))
			}
			zr, err := gzip.NewReader(bytes.NewReader(got))
			if err != nil {
				t.Fatal(err)
			}
			if got, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: %d bytes, want the file's %d", tt.name, len(got), len(want))
		}
	}
}

// TestDocumentGzipped: the document is sent gzipped by its own handler
// (from the copy compressed once), with no middleware in front, and
// gunzips to the document.
func TestDocumentGzipped(t *testing.T) {
	app := newApp()
	for i := 0; i < 2; i++ {
		req := httptest.NewRequest("GET", openapi.DocumentPath, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		res, err := app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(res.Body)
		if res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("Vary") != "Accept-Encoding" {
			t.Fatalf("Content-Encoding %q, Vary %q", res.Header.Get("Content-Encoding"), res.Header.Get("Vary"))
		}
		zr, err := gzip.NewReader(bytes.NewReader(got))
		if err != nil {
			t.Fatal(err)
		}
		if plain, err := io.ReadAll(zr); err != nil || !bytes.Equal(plain, openapi.MustJSON()) {
			t.Fatalf("gunzipped %d bytes (%v), want the document", len(plain), err)
		}
	}
}

// TestDocumentRevalidation: the document and the reference page carry a
// weak ETag; If-None-Match is compared weakly and may list several tags or
// be "*" (RFC 9110, 13.1.2); a tag that does not match gets the page. A request's Cache-Control: no-cache asks for exactly this
// revalidation, so it is answered 304 as well, as on the API's routes.
func TestDocumentRevalidation(t *testing.T) {
	app := newApp()
	for _, path := range []string{openapi.DocumentPath, openapi.ReferencePath} {
		res, err := app.Test(httptest.NewRequest("GET", path, nil))
		if err != nil {
			t.Fatal(err)
		}
		etag := res.Header.Get("ETag")
		strong, weak := strings.CutPrefix(etag, "W/")
		if !weak || !strings.HasPrefix(strong, `"`) {
			t.Fatalf("%s: ETag %q, want a weak tag", path, etag)
		}
		tests := []struct {
			ifNoneMatch, cacheControl string
			status                    int
		}{
			{etag, "", 304},
			{strong, "", 304},
			{`"other", ` + etag, "", 304},
			{"*", "", 304},
			{`"other"`, "", 200},
			{etag, "no-cache", 304},
			{etag, "max-age=0, no-cache", 304},
			{`"other"`, "no-cache", 200},
		}
		for _, tt := range tests {
			req := httptest.NewRequest("GET", path, nil)
			req.Header.Set("If-None-Match", tt.ifNoneMatch)
			if tt.cacheControl != "" {
				req.Header.Set("Cache-Control", tt.cacheControl)
			}
			res, err := app.Test(req)
			if err != nil || res.StatusCode != tt.status {
				t.Errorf("%s: If-None-Match %q, Cache-Control %q: %v %v, want %d", path, tt.ifNoneMatch, tt.cacheControl, res.StatusCode, err, tt.status)
			}
		}
	}
}
