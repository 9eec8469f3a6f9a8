package auth

import (
	"context"
	"errors"
	"testing"

	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// A 403 names the scopes the key lacks in its message, which is all v1's
// envelope carries, as well as in details.required.
func TestARefusalNamesTheScopes(t *testing.T) {
	ctx := tenancy.WithPrincipal(context.Background(), &tenancy.Principal{Scopes: tenancy.NewScopeSet(tenancy.Scope("clients:read"))})
	tests := []struct {
		name   string
		scopes []tenancy.Scope
		want   string
	}{
		{"one scope", []tenancy.Scope{"equipment:read"}, "the API key lacks the scope equipment:read"},
		{"any of two", []tenancy.Scope{"events:read", "jobs:read"}, "the API key lacks a required scope: it needs one of events:read, jobs:read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e *errs.Error
			if err := Check(ctx, tt.scopes...); !errors.As(err, &e) || e.Code != errs.InsufficientScope {
				t.Fatalf("Check = %v, want insufficient_scope", err)
			}
			if e.Message != tt.want {
				t.Errorf("message %q, want %q", e.Message, tt.want)
			}
			if got := e.Details.(map[string]any)["required"].([]string); len(got) != len(tt.scopes) {
				t.Errorf("details.required %v, want %v", got, tt.scopes)
			}
		})
	}
}
