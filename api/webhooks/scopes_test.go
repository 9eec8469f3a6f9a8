package webhooks_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestSubscriptionNeedsReadScopes: an endpoint receives each change's whole
// record, so a key may subscribe only to changes of object types it can
// read ("*": all of them), and may change an endpoint (its URL above all)
// only when it can read everything the endpoint is subscribed to. Without
// this a key holding only webhooks:write received quotes it could not GET.
func TestSubscriptionNeedsReadScopes(t *testing.T) {
	env := newEnv(t)
	org := env.NewOrg("Acme")
	hooksOnly := org.WithKey(apikey.Live, tenancy.WebhooksRead, tenancy.WebhooksWrite)
	quoteReader := org.WithKey(apikey.Live, tenancy.WebhooksRead, tenancy.WebhooksWrite, tenancy.QuotesRead)
	const url = "http://127.0.0.1:9/hook"

	everything := org.Post(endpoints, map[string]any{"url": url, "enabled_events": []string{"*"}})
	quotes := org.Post(endpoints, map[string]any{"url": url, "enabled_events": []string{"quote.created", "quote.approved"}})
	if everything.Status != http.StatusCreated || quotes.Status != http.StatusCreated {
		t.Fatalf("the all-scopes key: %d %s; %d %s", everything.Status, everything.Body, quotes.Status, quotes.Body)
	}
	everyID, quotesID := everything.Data()["id"].(string), quotes.Data()["id"].(string)

	cases := []struct {
		name     string
		do       func() (int, string, []any)
		status   int
		required string
	}{
		{"subscribe to quotes without quotes:read", func() (int, string, []any) {
			r := hooksOnly.Post(endpoints, map[string]any{"url": url, "enabled_events": []string{"client.created", "quote.created"}})
			return r.Status, r.ErrorCode(), required(r.JSON())
		}, http.StatusForbidden, "clients:read"},
		{"subscribe to everything without the read scopes", func() (int, string, []any) {
			r := quoteReader.Post(endpoints, map[string]any{"url": url, "enabled_events": []string{"*"}})
			return r.Status, r.ErrorCode(), required(r.JSON())
		}, http.StatusForbidden, "events:read"},
		{"subscribe to what the key reads", func() (int, string, []any) {
			r := quoteReader.Post(endpoints, map[string]any{"url": url, "enabled_events": []string{"quote.created"}})
			return r.Status, r.ErrorCode(), nil
		}, http.StatusCreated, ""},
		{"redirect an endpoint of everything", func() (int, string, []any) {
			r := quoteReader.Patch(endpoints+"/"+everyID, map[string]any{"url": "http://127.0.0.1:10/steal"})
			return r.Status, r.ErrorCode(), required(r.JSON())
		}, http.StatusForbidden, "events:read"},
		{"redirect an endpoint of quotes without quotes:read", func() (int, string, []any) {
			r := hooksOnly.Patch(endpoints+"/"+quotesID, map[string]any{"url": "http://127.0.0.1:10/steal"})
			return r.Status, r.ErrorCode(), required(r.JSON())
		}, http.StatusForbidden, "quotes:read"},
		{"widen a subscription beyond the key's reads", func() (int, string, []any) {
			r := quoteReader.Patch(endpoints+"/"+quotesID, map[string]any{"enabled_events": []string{"invoice.created"}})
			return r.Status, r.ErrorCode(), required(r.JSON())
		}, http.StatusForbidden, "invoices:read"},
		{"change an endpoint of what the key reads", func() (int, string, []any) {
			r := quoteReader.Patch(endpoints+"/"+quotesID, map[string]any{"url": "http://127.0.0.1:11/hook"})
			return r.Status, r.ErrorCode(), nil
		}, http.StatusOK, ""},
		{"an unknown endpoint is 404, not 403", func() (int, string, []any) {
			r := hooksOnly.Patch(endpoints+"/"+uuid.NewString(), map[string]any{"url": url})
			return r.Status, r.ErrorCode(), nil
		}, http.StatusNotFound, ""},
		{"removing needs no read scope", func() (int, string, []any) {
			r := hooksOnly.Delete(endpoints + "/" + everyID)
			return r.Status, r.ErrorCode(), nil
		}, http.StatusNoContent, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, code, req := tc.do()
			if status != tc.status {
				t.Fatalf("%d %s, want %d", status, code, tc.status)
			}
			if tc.required != "" && (code != "insufficient_scope" || !containsString(req, tc.required)) {
				t.Fatalf("%s, required %v: want insufficient_scope naming %s", code, req, tc.required)
			}
		})
	}
	// The refused PATCH left the endpoint as it was.
	if got := org.Get(endpoints + "/" + quotesID).Data(); got["url"] != "http://127.0.0.1:11/hook" {
		t.Fatalf("endpoint after the refusals: %v", got)
	}
}

func required(body map[string]any) []any {
	e, _ := body["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	r, _ := d["required"].([]any)
	return r
}

func containsString(xs []any, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
