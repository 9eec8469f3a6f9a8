package isolation_test

import (
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
)

// The change feed: A's writes reach A's feed and never B's.
func init() {
	register(nil, map[string]Route{
		"GET /api/v2/changes": {Fixture: "clients", Check: checkChanges},
	})
}

func checkChanges(t *testing.T, s *Suite) {
	id := s.Make(t, "clients", s.A)
	theirs := s.Make(t, "clients", s.B)
	if !feedHolds(t, s.A, id) {
		t.Fatalf("A's change of %s never reached A's feed", id)
	}
	if !feedHolds(t, s.B, theirs) {
		t.Fatalf("B's change of %s never reached B's feed", theirs)
	}
	// Once B's own later change is listed, A's earlier one would be too.
	for _, c := range feed(t, s.B) {
		if c["object_id"] == id {
			t.Fatalf("B's feed holds A's change %v", c)
		}
	}
	for _, c := range feed(t, s.A) {
		if c["object_id"] == theirs {
			t.Fatalf("A's feed holds B's change %v", c)
		}
	}
}

// feedHolds follows o's feed until it lists a change of id (a change is
// listed once the transactions before it have ended) or 60 s pass. Each
// poll goes on from the last one's cursor, and the polls back off from
// 20 ms to half a second: the suite's organizations share the real rate
// limit across every route, and a write transaction held open elsewhere on
// the server (another package's test) holds every feed back; polling every
// 20 ms spent the limit in 20 s, and so did rereading a long feed whole.
func feedHolds(t *testing.T, o *apitest.Org, id string) bool {
	t.Helper()
	wait, cursor := 20*time.Millisecond, ""
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(wait) {
		var changes []map[string]any
		changes, cursor = o.FollowChanges(cursor)
		for _, c := range changes {
			if c["object_id"] == id {
				return true
			}
		}
		wait = min(wait*3/2, 500*time.Millisecond)
	}
	return false
}

// feed reads o's whole feed.
func feed(t *testing.T, o *apitest.Org) []map[string]any {
	t.Helper()
	return o.ChangesAfter("")
}
