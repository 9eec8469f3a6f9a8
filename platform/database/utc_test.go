package database_test

import (
	"context"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestTimesAreReadInUTC reads timestamptz values in a process whose local
// zone is east of UTC, as a pod started with TZ=Asia/Tokyo is: they must come
// back in UTC (docs/decisions.md, "Date-times"), including the last instant
// of the year 9999, which in the local zone is in a year JSON cannot write.
func TestTimesAreReadInUTC(t *testing.T) {
	local := time.Local
	time.Local = time.FixedZone("east", 9*3600)
	t.Cleanup(func() { time.Local = local })

	ctx := context.Background()
	db, err := database.Open(ctx, pgtest.NewEmptyDatabase(t), database.Options{MaxOpenConns: 1, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, literal := range []string{"9999-12-31T23:59:59.999999Z", "2026-12-02T06:00:00+09:00", "1900-01-01T00:00:00Z"} {
		want, err := time.Parse(time.RFC3339Nano, literal)
		if err != nil {
			t.Fatal(err)
		}
		// twice: the first run of a statement is unprepared, the second
		// prepared (reuse.go), and each reads its result in its own way
		for range 2 {
			var got time.Time
			if err := db.NewRaw("SELECT ?::timestamptz", literal).Scan(ctx, &got); err != nil {
				t.Fatal(err)
			}
			if got.Location() != time.UTC || !got.Equal(want) {
				t.Fatalf("%s read as %s (%s), want %s in UTC", literal, got, got.Location(), want.UTC())
			}
		}
	}
}
