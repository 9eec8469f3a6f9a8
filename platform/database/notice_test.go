package database_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestOnNoticePassesRaisedNotices: a notice a statement raises itself
// reaches Options.OnNotice with its message; PostgreSQL's own notice of a
// statement that skipped ("already exists, skipping") does not.
func TestOnNoticePassesRaisedNotices(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var got []string
	db, err := database.Open(ctx, pgtest.NewEmptyDatabase(t), database.Options{MaxOpenConns: 1, Pooler: pgtest.Pooler(),
		OnNotice: func(msg string) { mu.Lock(); got = append(got, msg); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range []string{
		"CREATE TABLE IF NOT EXISTS skipped (id int)",
		"CREATE TABLE IF NOT EXISTS skipped (id int)",
		"DO $$ BEGIN RAISE NOTICE 'the server has no lz4: nothing changed'; END $$",
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"the server has no lz4: nothing changed"}; !slices.Equal(got, want) {
		t.Errorf("notices %q, want %q", got, want)
	}
}
