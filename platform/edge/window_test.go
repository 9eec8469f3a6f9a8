package edge_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestWindowAfterTheClockStepsBack: entries written before Redis's clock
// stepped back (a failover to a replica whose clock is behind, an NTP step)
// lie ahead of its new time. The window must still never count too few:
// an admission appends at the newest entry's time when that is later than
// now, so the list stays in time order, and the cut of expired entries
// (which searches the list as an ordered one) never removes a live entry.
// The clock cannot be stepped back for real here, so the test writes the
// window such a step leaves: 15 entries ahead of Redis's time, 8 of them 1 s
// and 7 of them 3 s ahead. Two admissions follow; when the first 8 and the
// two admissions' own time have left the window, the 7 have not, and a cut
// that took the list to be in time order while it was not would have
// removed them too.
func TestWindowAfterTheClockStepsBack(t *testing.T) {
	const limit, window = 20, time.Second
	ctx := context.Background()
	s := openRedis(t, pgtest.RedisURL()).(*edge.Redis)
	// The scenario holds only if the two admissions come before the check
	// minus the window, and the check before the 7 entries leave; a machine
	// that stalls past either gets it again with a new bucket.
	var key string
	for attempt := 1; ; attempt++ {
		bucket := "v2:org:" + randomName()
		key = s.Key(edge.WindowKey(bucket))
		now, err := s.Client().Time(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		var entries []any
		for range 8 {
			entries = append(entries, now.Add(time.Second).UnixMicro())
		}
		for range 7 {
			entries = append(entries, now.Add(3*time.Second).UnixMicro())
		}
		if err := s.Client().RPush(ctx, key, entries...).Err(); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if d := admit(t, s, bucket, limit, window); !d.Allowed {
				t.Fatalf("admission %d refused: %+v", i+1, d)
			}
		}
		admitted := time.Now()
		check := now.Add(time.Second + window + 200*time.Millisecond)
		sleepUntil(check)
		d := admit(t, s, bucket, limit, window)
		if admitted.After(check.Add(-window)) || !time.Now().Before(now.Add(3*time.Second+window)) {
			if attempt == 3 {
				t.Fatal("three times the machine stalled past the scenario's timing")
			}
			continue
		}
		if most := limit - 7 - 1; !d.Allowed || d.Remaining > most {
			t.Fatalf("%+v: with 7 entries still in the window it must be admitted with at most %d remaining", d, most)
		}
		break
	}
	raw, err := s.Client().LRange(ctx, key, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	times := make([]int64, len(raw))
	for i, v := range raw {
		if times[i], err = strconv.ParseInt(v, 10, 64); err != nil {
			t.Fatalf("entry %d is %q", i, v)
		}
	}
	if !slices.IsSorted(times) {
		t.Fatalf("the window is out of time order: %v", times)
	}
}
