package storage

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
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
		// The last character holds bits past the payload's end; another
		// spelling of them decodes to the same bytes, but is not the
		// cursor the server issued.
		"unused bits set": {"clients:org-a", unusedBitsSet(s)},
		// The base64 decoder skips line breaks, strict or not.
		"line feed after":            {"clients:org-a", s + "\n"},
		"line breaks inside":         {"clients:org-a", s[:20] + "\r\n\n" + s[20:] + "\r"},
		"line break for a character": {"clients:org-a", s[:len(s)-1] + "\n"},
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

// TestCursorIsSealed: a cursor does not show its position (the change feed's
// is a counter shared by all organizations), and a cursor issued before
// sealing, its position in the clear, is still accepted for its own scope
// only.
func TestCursorIsSealed(t *testing.T) {
	cs := NewCursors([]byte("0123456789abcdef0123456789abcdef"))
	c := Cursor{CreatedAt: time.UnixMicro(1_000_000).UTC(), ID: uuid.UUID{0, 0, 0, 0, 0, 0, 2, 0x8a}}
	plain := make([]byte, cursorPayloadLen)
	binary.BigEndian.PutUint64(plain[:8], uint64(c.CreatedAt.UnixMicro()))
	copy(plain[8:], c.ID[:])
	legacy := base64.RawURLEncoding.EncodeToString(append(append([]byte(nil), plain...), cs.mac("changes:org-a", plain)...))

	raw, err := base64.RawURLEncoding.DecodeString(cs.Encode("changes:org-a", c))
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range [][]byte{plain[:8], plain[8:16]} {
		if bytes.Contains(raw, part) {
			t.Fatalf("the cursor %x shows its position %x", raw, part)
		}
	}
	next := Cursor{CreatedAt: c.CreatedAt, ID: uuid.UUID{0, 0, 0, 0, 0, 0, 2, 0x8b}}
	rawNext, _ := base64.RawURLEncoding.DecodeString(cs.Encode("changes:org-a", next))
	if differ := diffBytes(raw[:cursorPayloadLen], rawNext[:cursorPayloadLen]); differ < 4 {
		t.Errorf("cursors one position apart differ in %d payload bytes: %x, %x", differ, raw, rawNext)
	}

	tests := []struct {
		name, scope, s string
		ok             bool
	}{
		{"sealed", "changes:org-a", cs.Encode("changes:org-a", c), true},
		{"issued before sealing", "changes:org-a", legacy, true},
		{"issued before sealing, another scope", "changes:org-b", legacy, false},
		{"sealed, another scope", "changes:org-b", cs.Encode("changes:org-a", c), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cs.Decode(tt.scope, tt.s)
			if ok := err == nil; ok != tt.ok {
				t.Fatalf("accepted = %v, want %v (%v)", ok, tt.ok, err)
			}
			if tt.ok && (!got.CreatedAt.Equal(c.CreatedAt) || got.ID != c.ID) {
				t.Fatalf("decoded %+v, want %+v", got, c)
			}
		})
	}
}

// TestAcceptPlain: a cursor in the clear is accepted only where the rule
// allows its position (the rule sees the scope and the position, before the
// tag is checked); a sealed cursor whatever the rule. Without the rule, the
// clear form of a sealed cursor's position with that cursor's tag is
// accepted: a reader holding the sealed cursor could test guesses of its
// position.
func TestAcceptPlain(t *testing.T) {
	cs := NewCursors([]byte("0123456789abcdef0123456789abcdef"))
	const scope = "changes:org-a"
	c := Cursor{CreatedAt: time.UnixMicro(1_000_000).UTC(), ID: uuid.UUID{0, 0, 0, 0, 0, 0, 2, 0x8a}}
	sealed := cs.Encode(scope, c)
	raw, _ := base64.RawURLEncoding.DecodeString(sealed)
	inClear := func(c Cursor) string {
		b := make([]byte, cursorPayloadLen, cursorPayloadLen+cursorMACLen)
		binary.BigEndian.PutUint64(b[:8], uint64(c.CreatedAt.UnixMicro()))
		copy(b[8:], c.ID[:])
		return base64.RawURLEncoding.EncodeToString(append(b, raw[cursorPayloadLen:]...))
	}
	guess := Cursor{CreatedAt: c.CreatedAt, ID: uuid.UUID{0, 0, 0, 0, 0, 0, 2, 0x8b}}
	if _, err := cs.Decode(scope, inClear(c)); err != nil {
		t.Fatalf("without a rule, the sealed cursor's position in the clear: %v, want it accepted (the guess that hits)", err)
	}
	if _, err := cs.Decode(scope, inClear(guess)); err == nil {
		t.Fatal("without a rule, a wrong guess was accepted")
	}

	var asked []string
	cs.AcceptPlain(func(s string, at Cursor) bool {
		asked = append(asked, s)
		return at.ID[7] < 0x8a
	})
	if _, err := cs.Decode(scope, inClear(c)); err == nil {
		t.Fatal("a position the rule refuses was accepted in the clear")
	}
	if _, err := cs.Decode(scope, sealed); err != nil {
		t.Fatalf("the sealed cursor: %v", err)
	}
	older := Cursor{CreatedAt: c.CreatedAt, ID: uuid.UUID{0, 0, 0, 0, 0, 0, 2, 0x89}}
	plain := make([]byte, cursorPayloadLen)
	binary.BigEndian.PutUint64(plain[:8], uint64(older.CreatedAt.UnixMicro()))
	copy(plain[8:], older.ID[:])
	legacy := base64.RawURLEncoding.EncodeToString(append(plain, cs.mac(scope, plain)...))
	if got, err := cs.Decode(scope, legacy); err != nil || got.ID != older.ID {
		t.Fatalf("a cursor in the clear the rule allows: %+v %v", got, err)
	}
	if len(asked) != 2 || asked[0] != scope {
		t.Errorf("the rule was asked %q, want twice for %q (the clear forms only)", asked, scope)
	}
}

func diffBytes(a, b []byte) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// unusedBitsSet returns s, unpadded base64url of a byte length that is not
// a multiple of 3, with the lowest bit of its last character (one past the
// data) set: the same bytes to a lenient decoder.
func unusedBitsSet(s string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, s[len(s)-1])
	return s[:len(s)-1] + string(alphabet[last|1])
}
