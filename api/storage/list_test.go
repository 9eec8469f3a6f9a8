package storage_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/tenancy"
)

// walk lists org page by page with limit, as a client following
// next_cursor would (each cursor encoded, then decoded for the next
// request), and returns the names in order. between runs after each page
// but the last.
func walk(t *testing.T, f fixture, org tenancy.OrganizationID, limit int, between func(page int), filters ...storage.Cond) []string {
	t.Helper()
	cs := storage.NewCursors([]byte("test key"))
	scope := storage.ListScope("clients", org)
	p := storage.PageRequest{Limit: limit, Scope: scope}
	var names []string
	for page := 0; ; page++ {
		if page > 100 {
			t.Fatal("no end after 100 pages")
		}
		got, err := storage.List[client](context.Background(), f.DB, org, p, filters...)
		if err != nil {
			t.Fatal(err)
		}
		if got.Items == nil || len(got.Items) > limit {
			t.Fatalf("page %d: %d items (nil %v), limit %d", page, len(got.Items), got.Items == nil, limit)
		}
		for _, c := range got.Items {
			if c.OrganizationID != org.UUID {
				t.Fatalf("page %d holds %s of another organization", page, c.Name)
			}
			names = append(names, c.Name)
		}
		next := storage.Next[client](got, p, cs)
		if (next != nil) != got.HasMore {
			t.Fatalf("page %d: has_more %v but next cursor %v", page, got.HasMore, next)
		}
		if next == nil {
			return names
		}
		if between != nil {
			between(page)
		}
		after, err := cs.Decode(scope, *next)
		if err != nil {
			t.Fatal(err)
		}
		p.After = &after
	}
}

func TestListPaging(t *testing.T) {
	f := newFixture(t)
	all := []string{"c1", "c2", "c3", "c4", "c5"}
	for _, n := range all {
		f.create(t, f.A, n)
	}
	f.create(t, f.B, "theirs")
	named := func(names ...string) storage.Cond {
		return storage.Where("?TableAlias.name = ANY(?)", names)
	}
	tests := []struct {
		name    string
		org     tenancy.OrganizationID
		limit   int
		filters []storage.Cond
		want    []string
	}{
		{"one page holds everything", f.A, 10, nil, all},
		{"exactly one page: no next cursor", f.A, 5, nil, all},
		{"pages of two", f.A, 2, nil, all},
		{"pages of one", f.A, 1, nil, all},
		{"a filter narrows every page", f.A, 1, []storage.Cond{named("c2", "c4", "theirs")}, []string{"c2", "c4"}},
		{"another organization sees only its own", f.B, 2, nil, []string{"theirs"}},
		{"an organization with nothing gets an empty page", tenancy.OrganizationID{UUID: uuid.New()}, 2, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := walk(t, f, tt.org, tt.limit, nil, tt.filters...)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("walk = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestListCursorSurvivesWrites: records created or deleted between two
// fetches never make another record appear twice or be skipped.
func TestListCursorSurvivesWrites(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// write runs after the first page (of two records) was read.
		write func(t *testing.T, f fixture, ids map[string]uuid.UUID)
		want  []string
	}{
		{"a record created mid-walk comes last", func(t *testing.T, f fixture, _ map[string]uuid.UUID) {
			f.create(t, f.A, "late")
		}, []string{"c1", "c2", "c3", "c4", "late"}},
		{"the last record read is deleted", func(t *testing.T, f fixture, ids map[string]uuid.UUID) {
			if err := storage.Delete[client](ctx, f.DB, f.A, ids["c2"], kind); err != nil {
				t.Fatal(err)
			}
		}, []string{"c1", "c2", "c3", "c4"}},
		{"the next record is deleted", func(t *testing.T, f fixture, ids map[string]uuid.UUID) {
			if err := storage.Delete[client](ctx, f.DB, f.A, ids["c3"], kind); err != nil {
				t.Fatal(err)
			}
		}, []string{"c1", "c2", "c4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			ids := map[string]uuid.UUID{}
			for _, n := range []string{"c1", "c2", "c3", "c4"} {
				ids[n] = f.create(t, f.A, n).ID
			}
			got := walk(t, f, f.A, 2, func(page int) {
				if page == 0 {
					tt.write(t, f, ids)
				}
			})
			if !slices.Equal(got, tt.want) {
				t.Fatalf("walk = %v, want %v", got, tt.want)
			}
		})
	}
}
