package client_test

import (
	"encoding/json"
	"testing"

	"github.com/eventapi/eventapi/api/client"
)

// TestRotateWebhookSecret: the SDK rotates an endpoint's signing secret.
// The zero body sends {} (the default grace period of 24 hours); a rotation
// with 0 keeps no previous secret; the new secret is in the answer, never
// in a GET (docs/webhooks.md, "Rotating the secret").
func TestRotateWebhookSecret(t *testing.T) {
	api, ctx := sdkFor(t, "Rotating")
	created, err := api.CreateWebhookEndpointWithResponse(ctx, nil, client.WebhookEndpointCreate{
		Url: "https://8.8.8.8/hook", EnabledEvents: []string{"quote.approved"}})
	if err != nil || created.JSON201 == nil {
		t.Fatalf("register: %v %s", err, created.Body)
	}
	ep := created.JSON201.Data

	if b, _ := json.Marshal(client.RotateWebhookEndpointSecretJSONRequestBody{}); string(b) != "{}" {
		t.Fatalf("the zero rotation body sends %s, want {}", b)
	}
	r, err := api.RotateWebhookEndpointSecretWithResponse(ctx, ep.Id, nil, client.RotateWebhookEndpointSecretJSONRequestBody{})
	if err != nil || r.JSON200 == nil {
		t.Fatalf("rotate: %v %s", err, r.Body)
	}
	d := r.JSON200.Data
	if d.Secret == ep.Secret || d.PreviousSecretExpiresAt == nil || d.PreviousSecretExpiresAt.Sub(d.UpdatedAt).Hours() != 24 {
		t.Errorf("after a rotation with the default: new secret %v, previous secret until %v (updated %v); want 24 h",
			d.Secret != ep.Secret, d.PreviousSecretExpiresAt, d.UpdatedAt)
	}

	none := 0
	r, err = api.RotateWebhookEndpointSecretWithResponse(ctx, ep.Id, nil, client.WebhookSecretRotation{PreviousSecretExpiresIn: &none})
	if err != nil || r.JSON200 == nil {
		t.Fatalf("rotate with 0: %v %s", err, r.Body)
	}
	if r.JSON200.Data.PreviousSecretExpiresAt != nil {
		t.Errorf("after a rotation with 0: previous secret until %v, want none", r.JSON200.Data.PreviousSecretExpiresAt)
	}
	got, err := api.GetWebhookEndpointWithResponse(ctx, ep.Id)
	if err != nil || got.JSON200 == nil {
		t.Fatalf("get: %v %s", err, got.Body)
	}
	if got.JSON200.Data.PreviousSecretExpiresAt != nil {
		t.Errorf("GET after a rotation with 0: previous secret until %v, want none", got.JSON200.Data.PreviousSecretExpiresAt)
	}
}
