package apitest_test

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/contract"
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const reqID = "0b7f8f52-3c1e-4c59-9d0a-6d2f1e7c2a10"

func headers(extra ...string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-Request-Id", reqID)
	h.Set("X-RateLimit-Limit", "1000")
	h.Set("X-RateLimit-Remaining", "999")
	h.Set("X-RateLimit-Reset", "2026-06-01T08:00:00Z")
	h.Set("ETag", `W/"0123456789abcdef"`) // every GET's 200 and 304; ignored elsewhere
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == "" {
			h.Del(extra[i])
		} else {
			h.Set(extra[i], extra[i+1])
		}
	}
	return h
}

const client = `{"id":"6f1c1f4e-3f2b-4b0e-9a43-1f7d0b3e2a11","name":"Acme","email":null,"phone":null,"address":null,` +
	`"city":null,"state":null,"zip":null,"notes":null,"demo":false,` +
	`"created_at":"2026-06-01T08:00:00Z","updated_at":"2026-06-01T08:00:00Z"}`

// TestContractCatchesWrongResponses feeds the validator responses that
// conform and responses that break the document in one way each: every
// broken one must be reported, every good one must pass.
func TestContractCatchesWrongResponses(t *testing.T) {
	c, err := contract.Load()
	if err != nil {
		t.Fatal(err)
	}
	id := "/api/v2/clients/6f1c1f4e-3f2b-4b0e-9a43-1f7d0b3e2a11"
	notFound := `{"error":{"code":"not_found","message":"client not found","details":null,"request_id":"` + reqID + `"}}`
	for _, tc := range []struct {
		name, method, path, reqBody, body string
		status                            int
		header                            http.Header
		wantProblem                       string // "" means the exchange conforms
	}{
		{"good detail", "GET", id, "", `{"data":` + client + `}`, 200, headers(), ""},
		{"good list", "GET", "/api/v2/clients?limit=2", "", `{"data":[` + client + `],"pagination":{"next_cursor":null,"has_more":false}}`, 200, headers(), ""},
		{"good create", "POST", "/api/v2/clients", `{"name":"Acme"}`, `{"data":` + client + `}`, 201, headers(), ""},
		{"good 404", "GET", id, "", notFound, 404, headers(), ""},
		{"good 401 without rate-limit headers", "GET", id, "", strings.Replace(notFound, "not_found", "invalid_credentials", 1), 401,
			headers("X-RateLimit-Limit", "", "X-RateLimit-Remaining", "", "X-RateLimit-Reset", "", "WWW-Authenticate", `Bearer realm="eventapi"`), ""},
		{"good fallback 405", "DELETE", id, "", `{"error":{"code":"method_not_allowed","message":"method DELETE is not allowed on this path","details":{"allow":["GET","PATCH"]},"request_id":"` + reqID + `"}}`, 405, headers(), ""},
		{"good fallback 404", "GET", "/api/v2/nothing", "", `{"error":{"code":"not_found","message":"no such route","details":null,"request_id":"` + reqID + `"}}`, 404, headers(), ""},
		{"outside the document", "GET", "/api/v1/equipment", "", `whatever`, 200, http.Header{}, ""},

		{"wrong type", "GET", id, "", `{"data":` + strings.Replace(client, `"demo":false`, `"demo":"no"`, 1) + `}`, 200, headers(), "demo"},
		{"missing field", "GET", id, "", `{"data":` + strings.Replace(client, `"zip":null,`, ``, 1) + `}`, 200, headers(), "zip"},
		{"undocumented field", "GET", id, "", `{"data":` + strings.Replace(client, `"zip":null,`, `"zip":null,"secret":1,`, 1) + `}`, 200, headers(), "secret"},
		{"bad uuid format", "GET", id, "", `{"data":` + strings.Replace(client, `6f1c1f4e-3f2b-4b0e-9a43-1f7d0b3e2a11`, `42`, 1) + `}`, 200, headers(), "uuid"},
		{"not an envelope", "GET", id, "", client, 200, headers(), "data"},
		{"undocumented status", "GET", id, "", notFound, 418, headers(), "418"},
		{"error code not allowed for the status", "GET", id, "", strings.Replace(notFound, "not_found", "rate_limited", 1), 404, headers(), "not_found"},
		{"missing X-Request-Id", "GET", id, "", `{"data":` + client + `}`, 200, headers("X-Request-Id", ""), "X-Request-Id"},
		{"missing rate-limit header", "GET", id, "", `{"data":` + client + `}`, 200, headers("X-RateLimit-Reset", ""), "X-RateLimit-Reset"},
		{"missing ETag on a read", "GET", id, "", `{"data":` + client + `}`, 200, headers("ETag", ""), "ETag"},
		{"good 304", "GET", id, "", ``, 304, headers("Content-Type", ""), ""},
		{"429 without Retry-After", "GET", id, "", `{"error":{"code":"rate_limited","message":"1000 requests per minute exceeded","details":{"limit":1000,"window_seconds":60,"reset":"2026-06-01T08:00:12Z"},"request_id":"` + reqID + `"}}`, 429, headers(), "Retry-After"},
		{"undocumented operation", "DELETE", id, "", ``, 204, headers(), "undocumented operation"},
		{"undocumented path", "GET", "/api/v2/secrets", "", `{"data":[]}`, 200, headers(), "undocumented operation"},
		{"accepted request the document forbids", "POST", "/api/v2/clients", `{"name":"Acme","colour":"red"}`, `{"data":` + client + `}`, 201, headers(), "colour"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var reqBody []byte
			if tc.reqBody != "" {
				reqBody = []byte(tc.reqBody)
			}
			problems := c.Check(tc.method, tc.path, reqBody, &contract.Response{Status: tc.status, Header: tc.header, Body: []byte(tc.body)})
			all := strings.Join(problems, "\n")
			switch {
			case tc.wantProblem == "" && len(problems) > 0:
				t.Errorf("conforming exchange reported:\n%s", all)
			case tc.wantProblem != "" && len(problems) == 0:
				t.Errorf("broken exchange not reported (want a problem mentioning %q)", tc.wantProblem)
			case tc.wantProblem != "" && !strings.Contains(all, tc.wantProblem):
				t.Errorf("problems do not mention %q:\n%s", tc.wantProblem, all)
			}
		})
	}
}

// TestEveryServedRouteIsDocumented compares the app's v2 routes with the
// document both ways: an operation the app serves but the document lacks,
// or one the document promises but the app does not serve, fails.
func TestEveryServedRouteIsDocumented(t *testing.T) {
	env := apitest.New(t)
	c, err := contract.Load()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, r := range env.Svc.App.GetRoutes(true) {
		if r.Method == http.MethodHead || r.Method == "USE" || !strings.HasPrefix(r.Path, "/api/v2/") ||
			strings.HasPrefix(r.Path, openapi.AssetsPath) {
			continue
		}
		op := r.Method + " " + paramsToTemplate(r.Path)
		served[op] = true
		if _, ok := c.Operation(r.Method, strings.ReplaceAll(r.Path, ":id", uuid.NewString())); !ok {
			t.Errorf("the app serves %s but api/openapi/openapi.yaml does not document it", op)
		}
	}
	var documented []string
	for _, op := range c.Operations() {
		if strings.HasPrefix(op, http.MethodHead+" ") {
			continue
		}
		documented = append(documented, op)
		if !served[op] {
			t.Errorf("api/openapi/openapi.yaml documents %s but the app does not serve it", op)
		}
	}
	sort.Strings(documented)
	t.Logf("%d documented operations, %d served", len(documented), len(served))
}

func paramsToTemplate(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") {
			parts[i] = "{" + p[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}

// TestLiveResponsesConform sends real requests through the harness, whose
// contract hook validates each answer; the checks here are the hook's.
func TestLiveResponsesConform(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	for _, path := range []string{"/api/v2/health", "/api/v2/clients", "/api/v2/clients?limit=0", "/api/v2/clients/" + uuid.NewString(), "/api/v2/openapi.json"} {
		a.Get(path)
	}
	created := a.Post("/api/v2/clients", map[string]any{"name": "Acme", "email": "ops@acme.example"})
	if created.Status != 201 {
		t.Fatalf("create: %d %s", created.Status, created.Body)
	}
	a.Patch("/api/v2/clients/"+created.Data()["id"].(string), map[string]any{"phone": "+1 555 0100"})
	a.Post("/api/v2/clients", "{not json")
	a.Delete("/api/v2/clients/" + created.Data()["id"].(string))
	env.Send(apitest.Request{Method: "GET", Path: "/api/v2/clients"})
}

// TestEveryV1RouteIsDocumented compares the app's /api/v1 routes with the v1
// document (api/openapi/v1.yaml) both ways.
func TestEveryV1RouteIsDocumented(t *testing.T) {
	env := apitest.New(t)
	c, err := contract.LoadV1()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, r := range env.Svc.App.GetRoutes(true) {
		if r.Method == http.MethodHead || r.Method == "USE" || !strings.HasPrefix(r.Path, "/api/v1/") ||
			r.Path == openapi.V1DocumentPath {
			continue
		}
		op := r.Method + " " + paramsToTemplate(r.Path)
		served[op] = true
		if _, ok := c.Operation(r.Method, strings.ReplaceAll(r.Path, ":id", uuid.NewString())); !ok {
			t.Errorf("the app serves %s but api/openapi/v1.yaml does not document it", op)
		}
	}
	for _, op := range c.Operations() {
		if !strings.HasPrefix(op, http.MethodHead+" ") && !served[op] {
			t.Errorf("api/openapi/v1.yaml documents %s but the app does not serve it", op)
		}
	}
	if len(served) != 7 {
		t.Errorf("%d v1 operations served, want 7", len(served))
	}
}

// TestV1ResponsesAreChecked: the contract hook validates /api/v1 answers
// against the v1 document, so a v1 answer that breaks it is reported.
func TestV1ResponsesAreChecked(t *testing.T) {
	c, err := contract.LoadV1()
	if err != nil {
		t.Fatal(err)
	}
	header := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {uuid.NewString()},
		"Deprecation": {"true"}, "Sunset": {"Wed, 30 Jun 2027 00:00:00 GMT"}, "X-Ratelimit-Limit": {"100"},
		"X-Ratelimit-Remaining": {"99"}, "X-Ratelimit-Reset": {"2027-01-01T00:00:00Z"}}
	good := `{"data":[],"meta":{"org_id":"` + uuid.NewString() + `","page":1,"total":0}}`
	if p := c.Check("GET", "/api/v1/crew", nil, &contract.Response{Status: 200, Header: header, Body: []byte(good)}); len(p) != 0 {
		t.Fatalf("a conforming v1 answer is reported: %v", p)
	}
	for name, body := range map[string]string{
		"v2 envelope":    `{"data":[],"pagination":{"next_cursor":null,"has_more":false}}`,
		"missing total":  `{"data":[],"meta":{"org_id":"` + uuid.NewString() + `","page":1}}`,
		"v2 error shape": `{"error":{"code":"not_found","message":"x","details":null,"request_id":"` + uuid.NewString() + `"}}`,
	} {
		status := 200
		if strings.Contains(name, "error") {
			status = 404
		}
		if p := c.Check("GET", "/api/v1/crew", nil, &contract.Response{Status: status, Header: header, Body: []byte(body)}); len(p) == 0 {
			t.Errorf("%s: a v1 answer that breaks the document passes", name)
		}
	}
}
