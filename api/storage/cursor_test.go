package storage

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestCursorRoundTripAndTamperEvidence(t *testing.T) {
	cs := NewCursors([]byte("0123456789abcdef0123456789abcdef"))
	other := NewCursors([]byte("another key, another deployment"))
	c := Cursor{CreatedAt: time.Date(2026, 5, 1, 12, 0, 0, 123456000, time.UTC), ID: uuid.New()}
	s := cs.Encode("clients:org-a", c)
	got, err := cs.Decode("clients:org-a", s)
	if err != nil || !got.CreatedAt.Equal(c.CreatedAt) || got.ID != c.ID {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	bad := map[string]struct{ scope, s string }{
		"other organization": {"clients:org-b", s},
		"other list":         {"events:org-a", s},
		"payload edited":     {"clients:org-a", flip(s, 3)},
		"mac edited":         {"clients:org-a", flip(s, len(s)-2)},
		"truncated":          {"clients:org-a", s[:len(s)-4]},
		"not base64":         {"clients:org-a", "!!!"},
		"empty":              {"clients:org-a", ""},
		"oversized":          {"clients:org-a", strings.Repeat("A", 200)},
	}
	for name, b := range bad {
		if _, err := cs.Decode(b.scope, b.s); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := other.Decode("clients:org-a", s); err == nil {
		t.Error("a cursor signed with another key was accepted")
	}
	if strings.ContainsAny(s, "+/=") {
		t.Errorf("cursor %q is not URL-safe", s)
	}
}
