package webhooks_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestWindowAttemptsResetByTheDatabase: a pod of the release before
// window_attempts (2.8.6, during a rolling update) clears a delivery's
// first_failed_at with its own statements, which do not name the column;
// the trigger of migration 20261202180100 resets the count all the same,
// so the next window's backoff starts at its first step (docs/webhooks.md,
// "Delivery and retries"). A failure that continues the window keeps it.
func TestWindowAttemptsResetByTheDatabase(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, client, endpoint := uuid.New(), uuid.New(), uuid.New()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"INSERT INTO organizations (id, name) VALUES (?, 'Window')", []any{org}},
		{`INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, secret)
			VALUES (?, ?, 'https://example.com/hook', '{*}', '\x00')`, []any{endpoint, org}},
		{"INSERT INTO clients (id, organization_id, name) VALUES (?, ?, 'Recorded')", []any{client, org}},
	} {
		if _, err := db.NewRaw(q.sql, q.args...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// The statements of release 2.8.6, as its pods run them.
	cases := []struct {
		name   string
		update string
		want   int
	}{
		{"a retry on request", `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = clock_timestamp(),
			first_failed_at = NULL, unprepared_since = NULL, updated_at = clock_timestamp()
			WHERE organization_id = ? AND id = ?`, 0},
		{"a re-enable of the endpoint", `UPDATE webhook_deliveries SET first_failed_at = NULL, unprepared_since = NULL,
			next_attempt_at = clock_timestamp(), updated_at = clock_timestamp()
			WHERE organization_id = ? AND id = ? AND status = 'pending'`, 0},
		{"a success", `UPDATE webhook_deliveries SET status = 'succeeded', attempt_count = attempt_count + 1,
			next_attempt_at = NULL, first_failed_at = NULL, unprepared_since = NULL, leased_until = NULL, lease_owner = NULL,
			updated_at = clock_timestamp()
			WHERE organization_id = ? AND id = ?`, 0},
		{"a failure in the window", `UPDATE webhook_deliveries SET attempt_count = attempt_count + 1,
			next_attempt_at = clock_timestamp() + interval '1 minute', first_failed_at = coalesce(first_failed_at, clock_timestamp()),
			updated_at = clock_timestamp()
			WHERE organization_id = ? AND id = ?`, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A delivery of the client's change in its fifth failed attempt
			// of a window.
			delivery := uuid.New()
			if _, err := db.NewRaw(`INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, change_id, change_seq, type,
					next_attempt_at, first_failed_at, attempt_count, window_attempts)
				SELECT ?, organization_id, ?, id, seq, type, clock_timestamp(), clock_timestamp(), 5, 5
				FROM changes WHERE organization_id = ? AND object_id = ?
				ON CONFLICT (endpoint_id, change_seq) DO UPDATE SET id = EXCLUDED.id, status = 'pending',
					first_failed_at = EXCLUDED.first_failed_at, window_attempts = EXCLUDED.window_attempts`,
				delivery, endpoint, org, client).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := db.NewRaw(tc.update, org, delivery).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			var got int
			if err := db.NewRaw("SELECT window_attempts FROM webhook_deliveries WHERE organization_id = ? AND id = ?", org, delivery).
				Scan(ctx, &got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("window_attempts %d after %s, want %d", got, tc.name, tc.want)
			}
		})
	}
}
