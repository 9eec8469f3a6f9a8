package webhooks_test

import (
	"context"
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
		{"rotate the secret of an endpoint of quotes without quotes:read", func() (int, string, []any) {
			r := hooksOnly.Post(endpoints+"/"+quotesID+"/rotate_secret", map[string]any{"previous_secret_expires_in": 0})
			return r.Status, r.ErrorCode(), required(r.JSON())
		}, http.StatusForbidden, "quotes:read"},
		{"rotate the secret of an endpoint of everything without the read scopes", func() (int, string, []any) {
			r := quoteReader.Post(endpoints+"/"+everyID+"/rotate_secret", nil)
			return r.Status, r.ErrorCode(), required(r.JSON())
		}, http.StatusForbidden, "events:read"},
		{"rotate the secret of an endpoint of what the key reads", func() (int, string, []any) {
			r := quoteReader.Post(endpoints+"/"+quotesID+"/rotate_secret", nil)
			return r.Status, r.ErrorCode(), nil
		}, http.StatusOK, ""},
		{"enabling an endpoint of quotes without quotes:read", func() (int, string, []any) {
			r := hooksOnly.Patch(endpoints+"/"+quotesID, map[string]any{"status": "enabled"})
			return r.Status, r.ErrorCode(), required(r.JSON())
		}, http.StatusForbidden, "quotes:read"},
		{"disabling and relabelling need no read scope", func() (int, string, []any) {
			r := hooksOnly.Patch(endpoints+"/"+quotesID, map[string]any{"status": "disabled", "description": "paused by ops"})
			return r.Status, r.ErrorCode(), nil
		}, http.StatusOK, ""},
		{"disabling with a URL change needs them", func() (int, string, []any) {
			r := hooksOnly.Patch(endpoints+"/"+quotesID, map[string]any{"status": "disabled", "url": "http://127.0.0.1:10/steal"})
			return r.Status, r.ErrorCode(), required(r.JSON())
		}, http.StatusForbidden, "quotes:read"},
		{"re-enabling by a key that reads the subscription", func() (int, string, []any) {
			r := quoteReader.Patch(endpoints+"/"+quotesID, map[string]any{"status": "enabled"})
			return r.Status, r.ErrorCode(), nil
		}, http.StatusOK, ""},
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

// TestARedirectedEndpointSendsNothingTheKeyCannotRead: a key may point an
// endpoint at a URL of its own with a subscription it can read (client
// changes here), but the endpoint's deliveries of other types (quotes) must
// not follow: a pending one is dropped, not sent to the new URL, and a
// retry of a past one is refused, for the key that cannot read quotes (403)
// and, the type being out of the subscription, for any key (422). Before,
// the key received quotes it could not GET.
func TestARedirectedEndpointSendsNothingTheKeyCannotRead(t *testing.T) {
	env := newEnv(t)
	org := env.NewOrg("Acme")
	owner := newReceiver(t)
	endpoint := register(t, org, owner, "quote.created", "client.created")
	quote := func(title string) {
		if r := org.Post("/api/v2/quotes", map[string]any{"title": title}); r.Status != http.StatusCreated {
			t.Fatalf("create quote: %d %s", r.Status, r.Body)
		}
	}
	quote("Delivered")
	waitFor(t, "the first quote's delivery", func() bool { return len(owner.Messages()) == 1 })
	delivered := deliveries(t, org, endpoint)[0]["id"].(string)

	// A second quote's delivery fails and waits for its next attempt.
	owner.Close()
	quote("Pending")
	waitFor(t, "a failed attempt of the second quote", func() bool {
		for _, d := range deliveries(t, org, endpoint) {
			if d["id"] != delivered && d["attempt_count"].(float64) >= 1 {
				return true
			}
		}
		return false
	})

	thief := newReceiver(t)
	thief.SetSecret(owner.secret)
	clientsOnly := org.WithKey(apikey.Live, tenancy.WebhooksRead, tenancy.WebhooksWrite, tenancy.ClientsRead)
	r := clientsOnly.Patch(endpoints+"/"+endpoint, map[string]any{"url": thief.URL(), "enabled_events": []string{"client.created"}})
	if r.Status != http.StatusOK {
		t.Fatalf("redirect with a subscription the key reads: %d %s", r.Status, r.Body)
	}
	// The pending quote delivery fails unsent at its next attempt (read
	// from the database: polling the API would meet the rate limit).
	waitFor(t, "the pending quote delivery to fail or be sent", func() bool {
		n, err := env.Svc.DB.NewSelect().Table("webhook_deliveries").
			Where("organization_id = ? AND endpoint_id = ? AND status = 'failed'", org.ID, endpoint).Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return n == 1 || len(thief.Messages()) > 0
	})
	if got := thief.Messages(); len(got) > 0 {
		t.Fatalf("the pending %s delivery went to the new URL: %s", got[0].Type, got[0].Body)
	}
	// It stays listed, with an attempt that sent nothing saying why.
	notSent := false
	for _, d := range deliveries(t, org, endpoint) {
		if d["id"] == delivered || d["status"] != "failed" {
			continue
		}
		attempts := d["attempts"].([]any)
		last := attempts[len(attempts)-1].(map[string]any)
		notSent = last["error"] == "not sent: the endpoint no longer subscribes to quote.created" && last["response_status"] == nil
		if !notSent {
			t.Errorf("the failed delivery's last attempt: %v", last)
		}
	}
	if !notSent {
		t.Error("the pending quote delivery is not listed as failed unsent")
	}

	retry := endpoints + "/" + endpoint + "/deliveries/" + delivered + "/retry"
	if r := clientsOnly.Post(retry, nil); r.Status != http.StatusForbidden || r.ErrorCode() != "insufficient_scope" {
		t.Errorf("retry of a quote delivery by a key without quotes:read: %d %s", r.Status, r.Body)
	}
	if r := org.Post(retry, nil); r.Status != http.StatusUnprocessableEntity || r.ErrorCode() != "invalid_transition" {
		t.Errorf("retry of a type out of the subscription: %d %s", r.Status, r.Body)
	}
	// What the subscription takes still goes out, to the new URL.
	createClient(t, org, "Visible")
	waitFor(t, "the client's delivery", func() bool { return len(thief.Messages()) == 1 })
	for _, m := range append(thief.Messages(), owner.Messages()[1:]...) {
		if m.Type != "client.created" {
			t.Errorf("a %s reached a receiver after the redirect: %s", m.Type, m.Body)
		}
	}
	if bad := thief.Bad(); len(bad) > 0 {
		t.Errorf("requests the new URL could not verify: %v", bad)
	}
}
