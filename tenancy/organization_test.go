package tenancy

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/pgtest"
)

func TestOrganizationSettings(t *testing.T) {
	db, _ := openCounted(t)
	ctx := context.Background()
	org, err := CreateOrganization(ctx, db, "  Stagecraft  ", nil)
	if err != nil || org.Name != "Stagecraft" || org.StockGuardMode != StockGuardBlock || org.RateLimit != nil {
		t.Fatalf("create: %+v %v", org, err)
	}
	warn, fifty, zero, neg := StockGuardWarn, 50, 0, -3
	bad := StockGuardMode("maybe")
	got, err := UpdateOrganization(ctx, db, org.ID, OrganizationUpdate{StockGuardMode: &warn, RateLimit: &fifty})
	if err != nil || got.StockGuardMode != StockGuardWarn || got.RateLimit == nil || *got.RateLimit != 50 {
		t.Fatalf("update: %+v %v", got, err)
	}
	if got, _ = UpdateOrganization(ctx, db, org.ID, OrganizationUpdate{RateLimit: &zero}); got.RateLimit != nil {
		t.Fatal("rate limit 0 must clear the override")
	}
	for name, u := range map[string]OrganizationUpdate{"bad guard": {StockGuardMode: &bad}, "negative rate": {RateLimit: &neg}} {
		if _, err := UpdateOrganization(ctx, db, org.ID, u); !errs.Is(err, errs.Validation) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := UpdateOrganization(ctx, db, uuid.New(), OrganizationUpdate{StockGuardMode: &warn}); !errs.Is(err, errs.NotFound) {
		t.Errorf("unknown org: %v", err)
	}
	if _, err := CreateOrganization(ctx, db, "", nil); !errs.Is(err, errs.Validation) {
		t.Errorf("empty name: %v", err)
	}
	orgs, err := ListOrganizations(ctx, db)
	if err != nil || len(orgs) != 1 {
		t.Fatalf("list: %d %v", len(orgs), err)
	}
	if err := DeleteOrganization(ctx, db, org.ID); err != nil {
		t.Fatal(err)
	}
}

// TestDeleteOrganizationTakesItsFeed: an organization's deletion removes
// its change feed and its sandbox's (the feed has no foreign key to cascade
// along), and leaves other organizations' feeds alone.
func TestDeleteOrganizationTakesItsFeed(t *testing.T) {
	db, _ := openCounted(t)
	ctx := context.Background()
	parent, err := CreateOrganization(ctx, db, "Parent", nil)
	if err != nil {
		t.Fatal(err)
	}
	sandbox, err := CreateOrganization(ctx, db, "Parent sandbox", &parent.ID)
	if err != nil {
		t.Fatal(err)
	}
	other, err := CreateOrganization(ctx, db, "Other", nil)
	if err != nil {
		t.Fatal(err)
	}
	feed := func(org uuid.UUID) int {
		n, err := db.NewSelect().TableExpr("changes").Where("organization_id = ?", org).Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	for _, org := range []uuid.UUID{parent.ID, sandbox.ID, other.ID} {
		if _, err := db.NewRaw("INSERT INTO clients (organization_id, name) VALUES (?, 'Feed')", org).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if feed(org) != 1 {
			t.Fatalf("org %s: the client's insert recorded %d changes, want 1", org, feed(org))
		}
	}
	if err := DeleteOrganization(ctx, db, parent.ID); err != nil {
		t.Fatal(err)
	}
	if p, s, o := feed(parent.ID), feed(sandbox.ID), feed(other.ID); p != 0 || s != 0 || o != 1 {
		t.Fatalf("changes left: parent %d, sandbox %d, other %d; want 0, 0, 1", p, s, o)
	}
}

// TestDeleteOrganizationTakesItsFeedInBatches: the feeds of an
// organization and its sandbox are deleted feedBatch changes a statement,
// before the transaction that deletes the organization, so a busy
// organization's 30 days of changes (and their webhook deliveries) are not
// one statement that can outlast the statement timeout every time.
func TestDeleteOrganizationTakesItsFeedInBatches(t *testing.T) {
	db, _ := openCounted(t)
	ctx := context.Background()
	defer func(n int) { feedBatch = n }(feedBatch)
	feedBatch = 2
	parent, err := CreateOrganization(ctx, db, "Busy parent", nil)
	if err != nil {
		t.Fatal(err)
	}
	sandbox, err := CreateOrganization(ctx, db, "Busy sandbox", &parent.ID)
	if err != nil {
		t.Fatal(err)
	}
	other, err := CreateOrganization(ctx, db, "Other", nil)
	if err != nil {
		t.Fatal(err)
	}
	for org, n := range map[uuid.UUID]int{parent.ID: 5, sandbox.ID: 2, other.ID: 1} {
		if _, err := db.NewRaw("INSERT INTO clients (organization_id, name) SELECT ?, 'Feed ' || g FROM generate_series(1, ?) g", org, n).
			Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	batches := &pgtest.Statements{Marker: "its feed in batches"}
	if err := DeleteOrganization(ctx, db.WithQueryHook(batches), parent.ID); err != nil {
		t.Fatal(err)
	}
	if len(batches.Sent) != 4 {
		t.Errorf("the feed's 7 changes went in %d statements, want 4 (2, 2, 2 and 1)", len(batches.Sent))
	}
	var left []uuid.UUID
	if err := db.NewRaw("SELECT organization_id FROM changes WHERE organization_id IN (?)", bun.List([]uuid.UUID{parent.ID, sandbox.ID, other.ID})).
		Scan(ctx, &left); err != nil || len(left) != 1 || left[0] != other.ID {
		t.Fatalf("changes left of %v (%v), want the other organization's one", left, err)
	}
}

// TestAFailedDeletionLeavesTheFeedsMarks: the batches that delete an
// organization's feed before its transaction move its retention mark, as
// the purge does, so that when the deletion then fails and the
// organization stays, a reader's cursor before what went is refused (410)
// rather than skipping it.
func TestAFailedDeletionLeavesTheFeedsMarks(t *testing.T) {
	db, _ := openCounted(t)
	ctx := context.Background()
	org, err := CreateOrganization(ctx, db, "Survivor", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.NewRaw("INSERT INTO clients (organization_id, name) SELECT ?, 'Feed ' || g FROM generate_series(1, 3) g", org.ID).
		Exec(ctx); err != nil {
		t.Fatal(err)
	}
	var last struct {
		Position int64 `bun:"position"`
		Seq      int64 `bun:"seq"`
	}
	if err := db.NewRaw(`SELECT position::text::bigint AS position, seq FROM changes WHERE organization_id = ?
		ORDER BY position DESC, seq DESC LIMIT 1`, org.ID).Scan(ctx, &last); err != nil {
		t.Fatal(err)
	}
	// The organization's own DELETE fails, after the feed's batches.
	failing := pgtest.BeforeQuery(func(ctx context.Context, e *bun.QueryEvent) context.Context {
		if strings.Contains(e.Query, `DELETE FROM "organizations"`) {
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			return cancelled
		}
		return ctx
	})
	if err := DeleteOrganization(ctx, db.WithQueryHook(failing), org.ID); err == nil {
		t.Fatal("the deletion succeeded; want it failed")
	}
	var mark struct {
		Position int64 `bun:"position"`
		Seq      int64 `bun:"seq"`
	}
	if err := db.NewRaw(`SELECT position::text::bigint AS position, seq FROM change_retention_marks WHERE organization_id = ?`, org.ID).
		Scan(ctx, &mark); err != nil || mark != last {
		t.Fatalf("the mark %+v (%v), want the last deleted change %+v", mark, err, last)
	}
	if _, err := GetOrganization(ctx, db, org.ID); err != nil {
		t.Fatalf("the organization after the failed deletion: %v, want it there", err)
	}
}
