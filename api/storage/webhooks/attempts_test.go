package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestADeliveryCarriesItsLatestAttempts: a delivery's answer carries its
// latest MaxEmbeddedAttempts attempts, oldest first, however many it made,
// in a list and on its own; another delivery's attempts stay its own. A
// delivery retried again and again made a single page of 82 MB.
func TestADeliveryCarriesItsLatestAttempts(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, client, endpoint := uuid.New(), uuid.New(), uuid.New()
	many, few := uuid.New(), uuid.New()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.NewRaw(sql, args...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	exec("INSERT INTO organizations (id, name) VALUES (?, 'Attempts')", org)
	exec(`INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, secret)
		VALUES (?, ?, 'https://example.com/hook', '{*}', '\x00')`, endpoint, org)
	exec("INSERT INTO clients (id, organization_id, name) VALUES (?, ?, 'Delivered')", client, org)
	exec("UPDATE clients SET name = 'Delivered again' WHERE id = ?", client)
	exec(`INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, change_id, change_seq, type, next_attempt_at)
		SELECT (ARRAY[?::uuid, ?::uuid])[row_number() OVER (ORDER BY seq)], organization_id, ?, id, seq, type, clock_timestamp()
		FROM changes WHERE organization_id = ? AND object_id = ?`, many, few, endpoint, org, client)
	// 50 attempts of one delivery a minute apart, 3 of the other.
	base := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	exec(`INSERT INTO webhook_delivery_attempts (organization_id, delivery_id, started_at, response_status, duration_ms, error)
		SELECT ?, ?, ?::timestamptz + make_interval(mins => g), 500, g, 'attempt ' || g FROM generate_series(1, 50) g`, org, many, base)
	exec(`INSERT INTO webhook_delivery_attempts (organization_id, delivery_id, started_at, response_status, duration_ms, error)
		SELECT ?, ?, ?::timestamptz + make_interval(mins => g), 500, g, 'attempt ' || g FROM generate_series(1, 3) g`, org, few, base)

	want := map[uuid.UUID][2]int{many: {31, 50}, few: {1, 3}} // first and last duration_ms carried
	check := func(how string, d webhooks.Delivery) {
		t.Helper()
		w := want[d.ID]
		n := w[1] - w[0] + 1
		if len(d.Attempts) != n || d.Attempts[0].DurationMS != w[0] || d.Attempts[n-1].DurationMS != w[1] {
			var got []int
			for _, a := range d.Attempts {
				got = append(got, a.DurationMS)
			}
			t.Fatalf("%s: delivery %s carries attempts %v, want %d to %d", how, d.ID, got, w[0], w[1])
		}
		for i := 1; i < n; i++ {
			if !d.Attempts[i].StartedAt.After(d.Attempts[i-1].StartedAt) {
				t.Fatalf("%s: attempts not oldest first", how)
			}
		}
	}
	page, err := webhooks.ListDeliveries(ctx, db, tenancy.OrganizationID{UUID: org}, endpoint, "", storage.PageRequest{Limit: 10})
	if err != nil || len(page.Items) != 2 {
		t.Fatalf("list: %d deliveries, %v; want 2", len(page.Items), err)
	}
	for _, d := range page.Items {
		check("in the list", d)
	}
	one, err := webhooks.GetDelivery(ctx, db, tenancy.OrganizationID{UUID: org}, endpoint, many)
	if err != nil {
		t.Fatal(err)
	}
	check("on its own", *one)
}
