package rls

import (
	"context"
	"testing"

	"github.com/google/uuid"
)

// TestPolicyFilters: in both RLS shapes the policy hides another
// organization's row even from a query without the organization filter, and
// shows the organization's own; the plain shape (a superuser or the owner,
// the policy bypassed) sees both. So the benchmarks time a policy that works.
func TestPolicyFilters(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	own := f.idsA[0]
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			rls := w.name != "plain"
			foreign := 1
			if rls {
				foreign = 0
			}
			for _, c := range []struct {
				what  string
				query string
				id    uuid.UUID
				want  int
			}{
				{"own row, filtered", detailSQL, own, 1},
				{"own row, policy only", unfilteredByID, own, 1},
				{"foreign row, policy only", unfilteredByID, f.idB, foreign},
				{"first list page", listSQL, uuid.Nil, 50},
			} {
				n, err := w.run(ctx, f, c.query, f.orgA, c.id)
				if err := mustCount(n, err, c.want, c.what); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestSettingDoesNotOutliveTheTransaction: after an RLS request the pooled
// connection carries neither the organization nor the role, so a following
// request cannot inherit them (what makes it safe behind a transaction
// pooler, and on a pool shared by requests of other organizations).
func TestSettingDoesNotOutliveTheTransaction(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	for _, w := range ways[1:] {
		t.Run(w.name, func(t *testing.T) {
			for range 8 { // touch every pooled connection
				if _, err := w.run(ctx, f, detailSQL, f.orgA, f.idsA[0]); err != nil {
					t.Fatal(err)
				}
			}
			for range 8 {
				var org, user string
				if err := f.db.QueryRowContext(ctx, "SELECT coalesce(current_setting('eventapi.org', true), ''), current_user").Scan(&org, &user); err != nil {
					t.Fatal(err)
				}
				if org != "" || user == f.role {
					t.Fatalf("a later statement sees eventapi.org=%q as %s", org, user)
				}
			}
		})
	}
}
