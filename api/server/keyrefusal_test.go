package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestRefusedKeysSayWhy: a key that exists but was revoked or has expired
// gets the 401 with details.reason (and expired_at), on v2 and, in its
// message, on v1; an unknown key gets the plain 401 with null details.
func TestRefusedKeysSayWhy(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Keys")
	ctx := context.Background()
	key := func(mode apikey.Mode, expires *time.Time) *tenancy.CreatedKey {
		k, err := tenancy.CreateKey(ctx, env.Svc.DB, tenancy.NewKey{OrganizationID: org.ID, Name: "k", Scopes: tenancy.AllScopes,
			Mode: mode, ExpiresAt: expires})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	past := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	expired := key(apikey.Live, &past)
	revoked, revokedLegacy := key(apikey.Live, nil), key(apikey.Legacy, nil)
	for _, k := range []*tenancy.CreatedKey{revoked, revokedLegacy} {
		if err := tenancy.RevokeKey(ctx, env.Svc.DB, k.ID); err != nil {
			t.Fatal(err)
		}
	}
	unknown, _ := apikey.Generate(apikey.Live)
	as := func(secret string) *apitest.Org { o := *org; o.Key = secret; return &o }

	for _, tc := range []struct {
		name, secret, path string
		reason, expiredAt  any // nil: no details
		v1Message          string
	}{
		{"expired", expired.Secret, "/api/v2/health", "expired", "2026-01-02T03:04:05Z", ""},
		{"revoked", revoked.Secret, "/api/v2/clients", "revoked", nil, ""},
		{"unknown", unknown, "/api/v2/health", nil, nil, ""},
		{"revoked on v1", revokedLegacy.Secret, "/api/v1/equipment", nil, nil, "API key revoked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := as(tc.secret).Get(tc.path)
			if r.Status != 401 {
				t.Fatalf("%d %s, want 401", r.Status, r.Body)
			}
			e, _ := r.JSON()["error"].(map[string]any)
			if tc.v1Message != "" {
				if e["message"] != tc.v1Message && r.JSON()["message"] != tc.v1Message {
					t.Fatalf("v1 answer %s, want the message %q", r.Body, tc.v1Message)
				}
				return
			}
			d, _ := e["details"].(map[string]any)
			if tc.reason == nil {
				if e["details"] != nil {
					t.Fatalf("details %v, want null", e["details"])
				}
				return
			}
			if d["reason"] != tc.reason || d["expired_at"] != tc.expiredAt {
				t.Fatalf("details %v, want reason %v, expired_at %v", d, tc.reason, tc.expiredAt)
			}
		})
	}
}
