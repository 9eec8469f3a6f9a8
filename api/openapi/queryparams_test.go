package openapi_test

import (
	"slices"
	"testing"

	"github.com/eventapi/eventapi/api/openapi"
)

// TestReadQueryParameters: each GET path, under the server's URL, with its
// query parameters, inline or by reference, sorted; writes, path
// parameters and headers are not among them.
func TestReadQueryParameters(t *testing.T) {
	got, err := openapi.ReadQueryParameters()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		want []string
	}{
		{"/api/v2/health", []string{}},
		{"/api/v2/events", []string{"cursor", "limit", "status"}},
		{"/api/v2/events/{id}", []string{"expand"}},
		{"/api/v2/vehicles/{id}/load", []string{"end", "event_id", "expand", "start"}},
		{"/api/v2/webhook_endpoints/{id}/deliveries", []string{"cursor", "limit", "status"}},
	}
	for _, c := range cases {
		names, ok := got[c.path]
		if !ok || !slices.Equal(names, c.want) {
			t.Errorf("%s: %q (declared %v), want %q", c.path, names, ok, c.want)
		}
	}
	if _, ok := got["/api/v2/webhook_endpoints/{id}/rotate_secret"]; ok {
		t.Errorf("a path without a GET is listed")
	}
	if len(got) < 30 {
		t.Errorf("%d GET paths, want every one of the document's", len(got))
	}
}
