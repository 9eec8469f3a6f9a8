package storage

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/errs"
)

// Cursor is a position in a list ordered by (created_at, id).
type Cursor struct {
	CreatedAt time.Time
	ID        uuid.UUID
}

const (
	cursorPayloadLen = 8 + 16
	cursorMACLen     = 16
)

// Cursors encodes and verifies opaque, URL-safe, tamper-evident cursors. A
// cursor is bound to the organization and list it came from (its scope), so
// it cannot be replayed against another list or tenant.
type Cursors struct{ key []byte }

// NewCursors returns a codec using key for the HMAC.
func NewCursors(key []byte) *Cursors { return &Cursors{key: append([]byte(nil), key...)} }

func (cs *Cursors) mac(scope string, payload []byte) []byte {
	m := hmac.New(sha256.New, cs.key)
	m.Write([]byte(scope))
	m.Write([]byte{0})
	m.Write(payload)
	return m.Sum(nil)[:cursorMACLen]
}

// Encode returns the opaque form of c for scope.
func (cs *Cursors) Encode(scope string, c Cursor) string {
	buf := make([]byte, cursorPayloadLen, cursorPayloadLen+cursorMACLen)
	binary.BigEndian.PutUint64(buf[:8], uint64(c.CreatedAt.UnixMicro()))
	copy(buf[8:], c.ID[:])
	buf = append(buf, cs.mac(scope, buf)...)
	return base64.RawURLEncoding.EncodeToString(buf)
}

// ErrBadCursor is the 422 for a cursor that is not one of ours.
var ErrBadCursor = errs.InvalidField("cursor", "is not a valid cursor for this list")

// Decode verifies and decodes s for scope.
func (cs *Cursors) Decode(scope, s string) (Cursor, error) {
	if len(s) > 64 {
		return Cursor{}, ErrBadCursor
	}
	buf, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(buf) != cursorPayloadLen+cursorMACLen {
		return Cursor{}, ErrBadCursor
	}
	payload, mac := buf[:cursorPayloadLen], buf[cursorPayloadLen:]
	if !hmac.Equal(mac, cs.mac(scope, payload)) {
		return Cursor{}, ErrBadCursor
	}
	var c Cursor
	c.CreatedAt = time.UnixMicro(int64(binary.BigEndian.Uint64(payload[:8]))).UTC()
	copy(c.ID[:], payload[8:])
	return c, nil
}
