package tenancy

import (
	"context"
	"slices"
	"testing"

	"github.com/eventapi/eventapi/tenancy/apikey"
)

func TestListActiveKeysMarked(t *testing.T) {
	db, _ := openCounted(t)
	ctx := context.Background()
	org, err := CreateOrganization(ctx, db, "Marked keys", nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := CreateOrganization(ctx, db, "Another", nil)
	if err != nil {
		t.Fatal(err)
	}
	const marker = " [k8s:0b7d7d1c-8f6e-4a8e-9f53-1d2f0c3b4a5e]"
	for _, k := range []struct {
		name    string
		org     *Organization
		revoked bool
	}{
		{"planner" + marker, org, false},
		{"marker alone" + marker, org, true},
		{"[k8s:0b7d7d1c-8f6e-4a8e-9f53-1d2f0c3b4a5e]", org, false},
		{"planner [k8s:another]", org, false},
		{"made with the CLI", org, false},
		{"elsewhere" + marker, other, false},
		{"planner" + marker + " copy", org, false},
	} {
		c, err := CreateKey(ctx, db, NewKey{OrganizationID: k.org.ID, Name: k.name, Scopes: []Scope{"events:read"}, Mode: apikey.Live})
		if err != nil {
			t.Fatalf("create %q: %v", k.name, err)
		}
		if k.revoked {
			if err := RevokeKey(ctx, db, c.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := ListActiveKeysMarked(ctx, db, org.ID, marker)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range got {
		names = append(names, k.Name)
	}
	want := []string{"planner" + marker, "[k8s:0b7d7d1c-8f6e-4a8e-9f53-1d2f0c3b4a5e]"}
	if !slices.Equal(names, want) {
		t.Fatalf("marked active keys %q, want %q", names, want)
	}
}
