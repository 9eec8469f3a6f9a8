package openapi_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/changes"
	"github.com/eventapi/eventapi/api/clients"
	"github.com/eventapi/eventapi/api/equipment"
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/requestlogs"
	"github.com/eventapi/eventapi/api/rest"
	v1 "github.com/eventapi/eventapi/api/v1"
)

// queryParam is a parameter of an operation as the limit tests read it.
type queryParam struct {
	Ref  string `json:"$ref"`
	Name string `json:"name"`
	In   string `json:"in"`
	// Schema holds the schema's keywords as written (a default may be
	// of any type).
	Schema map[string]json.RawMessage `json:"schema"`
}

// queryParams returns, by operationId, the query parameter called name of
// every operation of the document raw that has one, $ref resolved, the
// path item's own parameters included.
func queryParams(t *testing.T, raw []byte, name string) map[string]queryParam {
	t.Helper()
	var d struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Parameters map[string]queryParam `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	resolve := func(p queryParam) queryParam {
		if ref, ok := strings.CutPrefix(p.Ref, "#/components/parameters/"); ok {
			c, found := d.Components.Parameters[ref]
			if !found {
				t.Fatalf("unknown parameter %s", p.Ref)
			}
			return c
		}
		return p
	}
	find := func(ps []queryParam) (queryParam, bool) {
		for _, p := range ps {
			if p = resolve(p); p.In == "query" && p.Name == name {
				return p, true
			}
		}
		return queryParam{}, false
	}
	out := map[string]queryParam{}
	for path, item := range d.Paths {
		var shared []queryParam
		if raw, ok := item["parameters"]; ok {
			if err := json.Unmarshal(raw, &shared); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
		for method, raw := range item {
			if method == "parameters" || strings.HasPrefix(method, "x-") {
				continue
			}
			var op struct {
				OperationID string       `json:"operationId"`
				Parameters  []queryParam `json:"parameters"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			if p, ok := find(op.Parameters); ok {
				out[op.OperationID] = p
			} else if p, ok := find(shared); ok {
				out[op.OperationID] = p
			}
		}
	}
	return out
}

// TestQueryLimitsAreTheDocuments: each limit the code puts on a query
// parameter is the maxLength, maximum or default the document states for
// it (docs/decisions.md, "Each request rule once: the OpenAPI document"),
// so that neither changes alone. An operation of "" is every operation of
// the document that takes the parameter.
func TestQueryLimitsAreTheDocuments(t *testing.T) {
	v2, err := openapi.JSON()
	if err != nil {
		t.Fatal(err)
	}
	v1doc, err := openapi.V1JSON(time.Date(2027, 9, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string][]byte{"openapi.yaml": v2, "v1.yaml": v1doc}
	for _, tc := range []struct {
		doc, operation, param, keyword string
		code                           int
	}{
		{"openapi.yaml", "listClients", "search", "maxLength", clients.MaxSearchLength},
		{"openapi.yaml", "listEquipment", "category", "maxLength", equipment.MaxCategoryLength},
		{"openapi.yaml", "listRequestLogs", "route", "maxLength", requestlogs.MaxRouteLength},
		{"openapi.yaml", "listChanges", "type", "maxLength", changes.MaxTypeLength},
		{"openapi.yaml", "", "limit", "maximum", rest.MaxLimit},
		{"openapi.yaml", "", "limit", "default", rest.DefaultLimit},
		{"v1.yaml", "", "limit", "maximum", v1.MaxLimit},
		{"v1.yaml", "", "limit", "default", v1.DefaultLimit},
		{"v1.yaml", "", "page", "maximum", v1.MaxPage},
	} {
		params := queryParams(t, docs[tc.doc], tc.param)
		if tc.operation != "" {
			p, ok := params[tc.operation]
			if !ok {
				t.Errorf("%s: %s has no query parameter %s", tc.doc, tc.operation, tc.param)
				continue
			}
			params = map[string]queryParam{tc.operation: p}
		}
		if len(params) == 0 {
			t.Errorf("%s: no operation has a query parameter %s", tc.doc, tc.param)
		}
		for op, p := range params {
			if got, ok := p.Schema[tc.keyword]; !ok || string(got) != strconv.Itoa(tc.code) {
				if !ok {
					got = json.RawMessage("none")
				}
				t.Errorf("%s: %s ?%s has %s %s, the code %d", tc.doc, op, tc.param, tc.keyword, got, tc.code)
			}
		}
	}
}
