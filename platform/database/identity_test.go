package database_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestEachDatabaseHasAnIdentity: the migration draws one identity per
// database (two databases, two identities), keeps it to one row, and
// rolled back drops its table, after which InstallationIdentity says to
// migrate; applied again it draws a new one (docs/operator.md, "One
// database per object").
func TestEachDatabaseHasAnIdentity(t *testing.T) {
	ctx := context.Background()
	a, b := pgtest.OpenDirect(t), pgtest.Open(t)
	idA, err := database.InstallationIdentity(ctx, a)
	if err != nil || idA == uuid.Nil {
		t.Fatalf("identity: %s %v, want one", idA, err)
	}
	if idB, err := database.InstallationIdentity(ctx, b); err != nil || idB == idA {
		t.Fatalf("the second database's identity: %s %v, want another than %s", idB, err, idA)
	}
	if _, err := a.NewRaw("INSERT INTO installation_identity DEFAULT VALUES").Exec(ctx); err == nil {
		t.Fatal("a second row was accepted")
	}

	const name = "20261212010000_installation_identity"
	m, err := database.NewMigrator(a)
	if err != nil {
		t.Fatal(err)
	}
	if down, err := m.Down(ctx, database.DownTo{Migration: "20261211010000"}); err != nil || !slices.Contains(down, name) {
		t.Fatalf("down: %v %v, want %s among them", down, err, name)
	}
	var left bool
	if err := a.NewRaw("SELECT to_regclass('installation_identity') IS NOT NULL").Scan(ctx, &left); err != nil || left {
		t.Fatalf("after down the table is left: %v %v", left, err)
	}
	if _, err := database.InstallationIdentity(ctx, a); err == nil || !strings.Contains(err.Error(), "migrate up") {
		t.Fatalf("identity without the table: %v, want an error saying to migrate", err)
	}
	if up, err := m.Up(ctx); err != nil || !slices.Contains(up, name) {
		t.Fatalf("up: %v %v, want %s among them", up, err, name)
	}
	if again, err := database.InstallationIdentity(ctx, a); err != nil || again == uuid.Nil || again == idA {
		t.Fatalf("identity after down and up: %s %v, want a new one", again, err)
	}
}
