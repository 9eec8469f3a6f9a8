package controller

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

func TestParseKeySpec(t *testing.T) {
	const org = "6f1c2a34-8d3e-4b7a-9c1d-2e3f4a5b6c7d"
	base := func(mutate func(*v1alpha1.ApiKeySpec)) *v1alpha1.ApiKey {
		ak := &v1alpha1.ApiKey{ObjectMeta: metav1.ObjectMeta{Name: "loader"},
			Spec: v1alpha1.ApiKeySpec{OrganizationID: org, Scopes: []v1alpha1.Scope{"events:read"}, SecretName: "s"}}
		if mutate != nil {
			mutate(&ak.Spec)
		}
		return ak
	}
	exp := metav1.NewTime(time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC))
	for _, tc := range []struct {
		name    string
		ak      *v1alpha1.ApiKey
		invalid bool
		message string // when set, the InvalidSpec message
		check   func(t *testing.T, s keySpec)
	}{
		{name: "defaults", ak: base(nil), check: func(t *testing.T, s keySpec) {
			if s.name != "loader" || s.mode != "live" || s.grace != 5*time.Minute || s.expiresAt != nil {
				t.Errorf("defaults %+v", s)
			}
		}},
		{name: "duplicate scopes collapse", ak: base(func(s *v1alpha1.ApiKeySpec) {
			s.Scopes = []v1alpha1.Scope{"events:read", "clients:read", "events:read"}
		}), check: func(t *testing.T, s keySpec) {
			if len(s.scopes) != 2 {
				t.Errorf("scopes %v", s.scopes)
			}
		}},
		{name: "explicit fields", ak: base(func(s *v1alpha1.ApiKeySpec) {
			s.Name, s.Mode, s.ExpiresAt = "CI", v1alpha1.KeyModeTest, &exp
			s.RotationGracePeriod = &metav1.Duration{Duration: time.Second}
		}), check: func(t *testing.T, s keySpec) {
			if s.name != "CI" || s.mode != "test" || s.grace != time.Second || !s.expiresAt.Equal(exp.Time) {
				t.Errorf("fields %+v", s)
			}
		}},
		{name: "unknown scope", ak: base(func(s *v1alpha1.ApiKeySpec) { s.Scopes = []v1alpha1.Scope{"root"} }), invalid: true,
			message: `spec.scopes: unknown scope "root" (known: ` + tenancy.JoinScopes(tenancy.AllScopes) + ")"},
		{name: "no scopes", ak: base(func(s *v1alpha1.ApiKeySpec) { s.Scopes = nil }), invalid: true,
			message: "spec.scopes: at least one scope is required"},
		{name: "legacy mode", ak: base(func(s *v1alpha1.ApiKeySpec) { s.Mode = "legacy" }), invalid: true},
		{name: "bad organization", ak: base(func(s *v1alpha1.ApiKeySpec) { s.OrganizationID = "acme" }), invalid: true},
		{name: "control character in name", ak: base(func(s *v1alpha1.ApiKeySpec) { s.Name = "Planner\tv2" }), invalid: true},
		{name: "invalid UTF-8 in name", ak: base(func(s *v1alpha1.ApiKeySpec) { s.Name = "Planner \xff" }), invalid: true},
		{name: "negative grace", ak: base(func(s *v1alpha1.ApiKeySpec) {
			s.RotationGracePeriod = &metav1.Duration{Duration: -time.Second}
		}), invalid: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, f := parseKeySpec(tc.ak)
			if tc.invalid {
				if f == nil || f.reason != v1alpha1.ReasonInvalidSpec || f.err != nil || f.result.RequeueAfter != 0 {
					t.Fatalf("want a terminal InvalidSpec failure, got %+v", f)
				}
				if tc.message != "" && f.message != tc.message {
					t.Errorf("message %q, want %q", f.message, tc.message)
				}
				return
			}
			if f != nil {
				t.Fatalf("unexpected failure %+v", f)
			}
			tc.check(t, s)
		})
	}
}

func TestSameScopes(t *testing.T) {
	for _, tc := range []struct {
		stored []string
		want   []tenancy.Scope
		same   bool
	}{
		{[]string{"events:read", "clients:read"}, []tenancy.Scope{"clients:read", "events:read"}, true},
		{[]string{"events:read"}, []tenancy.Scope{"events:read", "clients:read"}, false},
		{[]string{"events:read", "events:read"}, []tenancy.Scope{"events:read"}, false},
		{nil, []tenancy.Scope{"events:read"}, false},
	} {
		if got := sameScopes(tc.stored, tc.want); got != tc.same {
			t.Errorf("sameScopes(%v, %v) = %v", tc.stored, tc.want, got)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err      error
		reason   string
		retried  bool
		returned bool
	}{
		{errs.InvalidField("name", "too long"), v1alpha1.ReasonInvalidSpec, false, false},
		{errs.NotFoundOf("organization"), v1alpha1.ReasonOrganizationNotFound, true, false},
		{errs.New(errs.ServiceUnavailable, "down"), v1alpha1.ReasonDatabaseError, false, true},
		{errs.Wrap(errs.New(errs.Internal, "x"), "boom"), v1alpha1.ReasonDatabaseError, false, true},
	} {
		f := classify(tc.err, v1alpha1.ReasonOrganizationNotFound)
		if f.reason != tc.reason || (f.result.RequeueAfter > 0) != tc.retried || (f.err != nil) != tc.returned {
			t.Errorf("classify(%v) = %+v", tc.err, f)
		}
	}
}

// The previous key is revoked at whole seconds, never before the grace
// period asked has passed (it was rounded down, up to 1 s short).
func TestRevokeTime(t *testing.T) {
	base := time.Date(2026, 11, 21, 6, 6, 36, 0, time.UTC)
	for _, tc := range []struct {
		now   time.Time
		grace time.Duration
		want  time.Time
	}{
		{base, 10 * time.Second, base.Add(10 * time.Second)},
		{base.Add(300 * time.Millisecond), 10 * time.Second, base.Add(11 * time.Second)},
		{base.Add(600 * time.Millisecond), 1500 * time.Millisecond, base.Add(3 * time.Second)},
		{base.Add(999 * time.Millisecond), time.Nanosecond, base.Add(time.Second)},
	} {
		got := revokeTime(tc.now, tc.grace)
		if !got.Equal(tc.want) || got.Before(tc.now.Add(tc.grace)) {
			t.Errorf("revokeTime(%s, %s) = %s, want %s", tc.now.Format(time.RFC3339Nano), tc.grace, got, tc.want)
		}
	}
}
