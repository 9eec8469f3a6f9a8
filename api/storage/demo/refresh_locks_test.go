package demo

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestRefreshTakesLocksInTheAPIsOrder: a reservation PATCH locks its row,
// then its equipment. Refresh running meanwhile must wait for the row
// before it locks the equipment; when it locked the equipment first (as it
// did), the PATCH's equipment lock closed a cycle and PostgreSQL ended one
// of the two with "deadlock detected".
func TestRefreshTakesLocksInTheAPIsOrder(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	aged := seededOrg(t, db, "Locked")
	age(t, db, aged, 5)
	var line struct {
		ID          uuid.UUID `bun:"id"`
		EquipmentID uuid.UUID `bun:"equipment_id"`
	}
	if err := db.NewRaw(`SELECT r.id, r.equipment_id FROM equipment_reservations r JOIN events e ON e.id = r.event_id
		WHERE r.organization_id = ? AND e.name = ? ORDER BY r.id LIMIT 1`, aged.Org.UUID, showcaseName).Scan(ctx, &line); err != nil {
		t.Fatal(err)
	}
	patch, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = patch.Rollback() }()
	if _, err := patch.NewRaw(`UPDATE equipment_reservations SET notes = notes WHERE organization_id = ? AND id = ?`,
		aged.Org.UUID, line.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	refreshed := make(chan error, 1)
	go func() {
		// In a transaction of the test's, as the CLI runs it: a deadlock
		// is then an error here, not a run again that would hide it.
		tx, err := db.BeginTx(ctx, nil)
		if err == nil {
			if _, err = Refresh(ctx, tx, aged, time.Now()); err == nil {
				err = tx.Commit()
			} else {
				_ = tx.Rollback()
			}
		}
		refreshed <- err
	}()
	// Refresh waits for the row the PATCH holds.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var waiting int
		if err := db.NewRaw(`SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`).Scan(ctx, &waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		select {
		case err := <-refreshed:
			t.Fatalf("Refresh ended while the PATCH held its line: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("Refresh never waited for the line the PATCH holds")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The PATCH's guard locks the equipment now: with Refresh holding it,
	// this closed the cycle.
	if _, err := patch.NewRaw(`SELECT 1 FROM equipment WHERE organization_id = ? AND id = ? FOR NO KEY UPDATE`,
		aged.Org.UUID, line.EquipmentID).Exec(ctx); err != nil {
		t.Fatalf("the PATCH's equipment lock: %v", err)
	}
	if err := patch.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-refreshed; err != nil {
		t.Fatalf("Refresh: %v", err)
	}
}
