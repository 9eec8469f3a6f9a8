package tenancy

import (
	"context"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestIdentifyNamesARefusedKey: a key refused because it was revoked or has
// expired (also while cached) is named, with the organization it acted on
// (a test key's sandbox), its id and prefix; an unknown or malformed key,
// and a key that passes, name none.
func TestIdentifyNamesARefusedKey(t *testing.T) {
	db, _ := openCounted(t)
	ctx := context.Background()
	org, _ := CreateOrganization(ctx, db, "Owner", nil)
	sandbox, err := CreateOrganization(ctx, db, "Owner sandbox", &org.ID)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAuthenticator(db, nil)
	defer a.Close()
	clock := time.Now()
	a.now = func() time.Time { return clock }
	key := func(mode apikey.Mode, expires *time.Time) *CreatedKey {
		k, err := CreateKey(ctx, db, NewKey{OrganizationID: org.ID, Name: "k", Scopes: []Scope{EventsRead}, Mode: mode, ExpiresAt: expires})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	past, soon := clock.Add(-time.Minute), clock.Add(time.Second)
	live, test, expired, expiring := key(apikey.Live, nil), key(apikey.Test, nil), key(apikey.Live, &past), key(apikey.Live, &soon)
	if _, err := a.Authenticate(ctx, expiring.Secret); err != nil {
		t.Fatal(err) // cached before its expiry
	}
	for _, k := range []*CreatedKey{live, test} {
		if err := RevokeKey(ctx, db, k.ID); err != nil {
			t.Fatal(err)
		}
	}
	clock = clock.Add(2 * time.Second)
	unknown, _ := apikey.Generate(apikey.Live)
	passing := key(apikey.Live, nil)

	for _, tc := range []struct {
		name string
		raw  string
		want *RefusedKey
	}{
		{"revoked", live.Secret, &RefusedKey{org.ID, live.ID, live.Prefix}},
		{"revoked test key: its sandbox", test.Secret, &RefusedKey{sandbox.ID, test.ID, test.Prefix}},
		{"expired", expired.Secret, &RefusedKey{org.ID, expired.ID, expired.Prefix}},
		{"expired while cached", expiring.Secret, &RefusedKey{org.ID, expiring.ID, expiring.Prefix}},
		{"unknown", unknown, nil},
		{"malformed", "svc_live_nope", nil},
	} {
		p, refused, err := a.Identify(ctx, tc.raw)
		if p != nil || !errs.Is(err, errs.InvalidCredentials) {
			t.Errorf("%s: %+v %v, want invalid_credentials", tc.name, p, err)
		}
		if (refused == nil) != (tc.want == nil) || (refused != nil && *refused != *tc.want) {
			t.Errorf("%s: refused %+v, want %+v", tc.name, refused, tc.want)
		}
	}
	if p, refused, err := a.Identify(ctx, passing.Secret); err != nil || p == nil || refused != nil {
		t.Errorf("a key that passes: %+v %+v %v, want its principal alone", p, refused, err)
	}
}
