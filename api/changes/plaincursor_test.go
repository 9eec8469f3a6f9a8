package changes_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"net/url"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// inTheClear is the cursor in the clear, as issued before cursors were
// sealed, of the change at (position, seq) with the tag of a sealed cursor
// there: the sealing's tag is the tag that position has in the clear.
func inTheClear(t *testing.T, sealed string, position, seq int64) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil || len(raw) != 40 {
		t.Fatalf("cursor %q: %d bytes, %v", sealed, len(raw), err)
	}
	plain := make([]byte, 24, 40)
	binary.BigEndian.PutUint64(plain[:8], uint64(position))
	binary.BigEndian.PutUint64(plain[8:16], uint64(seq))
	return base64.RawURLEncoding.EncodeToString(append(plain, raw[24:]...))
}

// TestPlainCursorsOnlyBeforeTheBound: a feed cursor in the clear is
// accepted only at a change numbered at most the bound recorded at the
// upgrade (change_plain_cursor_bound). Past it, the clear form of a sealed
// cursor's own position is refused as a wrong guess is (422 on cursor), so
// a reader cannot test guesses of the global (position, seq) its sealed
// cursors hide; at or below it, a cursor saved before sealing goes on. A
// pod reads the bound when it starts (a replica, after the bound is raised).
func TestPlainCursorsOnlyBeforeTheBound(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	ctx := context.Background()
	first := create(t, a, "/api/v2/clients", map[string]any{"name": "First"})
	second := create(t, a, "/api/v2/clients", map[string]any{"name": "Second"})
	settle(t, a, "", holds(second["id"]))
	// A page of one change: its cursor is at the first.
	page := a.Get(feedPath + "?limit=1")
	sealed, _ := page.JSON()["pagination"].(map[string]any)["next_cursor"].(string)
	if page.Status != 200 || len(page.List()) != 1 || page.List()[0]["object_id"] != first["id"] || sealed == "" {
		t.Fatalf("first page: %d %s", page.Status, page.Body)
	}
	var at struct {
		Position int64 `bun:"position"`
		Seq      int64 `bun:"seq"`
	}
	if err := env.Svc.DB.NewRaw("SELECT position::text::bigint AS position, seq FROM changes WHERE organization_id = ? AND id = ?",
		a.ID, page.List()[0]["id"]).Scan(ctx, &at); err != nil {
		t.Fatal(err)
	}
	hit := inTheClear(t, sealed, at.Position, at.Seq)
	guesses := map[string]string{
		"the sealed cursor's own position": hit,
		"the next seq":                     inTheClear(t, sealed, at.Position, at.Seq+1),
		"the next position":                inTheClear(t, sealed, at.Position+1, at.Seq),
	}
	for name, cursor := range guesses {
		res := a.Get(feedPath + "?cursor=" + url.QueryEscape(cursor))
		if res.Status != 422 || res.ErrorCode() != "validation_error" {
			t.Errorf("past the bound, %s: %d %s, want 422 as for any cursor not ours", name, res.Status, res.Body)
		}
	}
	if res := a.Get(feedPath + "?cursor=" + url.QueryEscape(sealed)); res.Status != 200 {
		t.Fatalf("the sealed cursor: %d %s", res.Status, res.Body)
	}

	// The change was made before the upgrade: its cursor in the clear,
	// saved then, goes on where it was; a wrong one is still refused.
	if _, err := env.Svc.DB.NewRaw("UPDATE change_plain_cursor_bound SET seq = ?", at.Seq).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	upgraded := a.Via(env.Replica())
	res := upgraded.Get(feedPath + "?cursor=" + url.QueryEscape(hit))
	if res.Status != 200 || len(res.List()) != 1 || res.List()[0]["object_id"] != second["id"] {
		t.Fatalf("a cursor in the clear before the bound: %d %s, want the change after it", res.Status, res.Body)
	}
	if res := upgraded.Get(feedPath + "?cursor=" + url.QueryEscape(guesses["the next position"])); res.Status != 422 {
		t.Fatalf("a wrong cursor in the clear before the bound: %d %s, want 422", res.Status, res.Body)
	}
}
