package idempotency

import (
	"context"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/edge"
)

// TestOrphansReleaseTheirOwnMarkers: a pass releases each failed claim's
// marker, the key's only while it holds that marker (a later request's
// claim of the key stays), and stops once every marker was released twice.
func TestOrphansReleaseTheirOwnMarkers(t *testing.T) {
	ctx := context.Background()
	store := edge.NewMemory()
	o := &orphans{store: store, ttl: time.Minute, every: time.Hour, log: func(context.Context, error) {}}
	// The stalled claims ran after all: two keys hold failed claims'
	// markers; a third key was claimed afresh by a later request.
	for _, k := range []string{"a", "b"} {
		if _, ok, err := store.Claim(ctx, k, []byte("failed-"+k), time.Minute); err != nil || !ok {
			t.Fatal(ok, err)
		}
	}
	if _, ok, err := store.Claim(ctx, "c", []byte("live"), time.Minute); err != nil || !ok {
		t.Fatal(ok, err)
	}
	o.pending = map[string]*orphan{}
	for _, k := range []string{"a", "b", "c"} {
		o.pending[k+"\x00failed-"+k] = &orphan{name: k, marker: []byte("failed-" + k), until: time.Now().Add(time.Minute)}
	}
	o.running = true
	if !o.pass() {
		t.Fatal("stopped after one pass: each marker is released twice")
	}
	for _, c := range []struct {
		key  string
		held bool
	}{{"a", false}, {"b", false}, {"c", true}} {
		v, _, _ := store.Claim(ctx, c.key, []byte("probe"), time.Minute)
		if (v != nil) != c.held {
			t.Errorf("key %s holds %q, want held %v", c.key, v, c.held)
		}
	}
	if o.pass() {
		t.Fatal("still running after the second answered attempt")
	}
}
