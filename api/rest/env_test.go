package rest_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
)

func TestLargeWriteAdmitsOnlyKeysBothGuardsPass(t *testing.T) {
	w := rest.LargeWrite{Write: tenancy.NewScopeSet(tenancy.QuotesWrite), Read: tenancy.NewScopeSet(tenancy.QuotesRead)}
	for _, tc := range []struct {
		name   string
		scopes []tenancy.Scope
		want   bool
	}{
		{"write and read", []tenancy.Scope{tenancy.QuotesWrite, tenancy.QuotesRead}, true},
		{"write only", []tenancy.Scope{tenancy.QuotesWrite}, false},
		{"read only", []tenancy.Scope{tenancy.QuotesRead}, false},
		{"another resource's", []tenancy.Scope{tenancy.InvoicesWrite, tenancy.InvoicesRead}, false},
		{"none", nil, false},
	} {
		if got := w.Admits(tenancy.NewScopeSet(tc.scopes...)); got != tc.want {
			t.Errorf("%s: Admits = %v, want %v", tc.name, got, tc.want)
		}
	}
}
