package storage

import (
	"crypto/aes"
	"crypto/cipher"
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
//
// A cursor is also sealed: its position is encrypted, not only signed. The
// change feed's position is a counter shared by every organization, so a
// readable cursor would let a reader count the other organizations' writes
// between two of its pages. The sealing is deterministic (SIV): the tag is
// the HMAC of scope and position, and the position is encrypted with
// AES-CTR under a key derived from the same secret, the tag as its IV.
// Cursors issued before sealing (the position in the clear, the same tag)
// are still accepted where AcceptPlain allows, so a feed reader's saved
// cursor survives the upgrade. docs/decisions.md, "Cursors are sealed".
type Cursors struct {
	key []byte
	enc cipher.Block
	// plain says whether a cursor in the clear, for scope, may name c
	// (AcceptPlain); nil: any.
	plain func(scope string, c Cursor) bool
}

// sealLabel derives the encryption key from the cursor secret. The tag's
// input always holds a zero byte followed by the payload; the label has no
// zero byte, so the two HMAC inputs never coincide.
const sealLabel = "eventapi cursor sealing key"

// NewCursors returns a codec using key for the HMAC and, derived from it,
// the encryption.
func NewCursors(key []byte) *Cursors {
	k := hmac.New(sha256.New, key)
	k.Write([]byte(sealLabel))
	block, err := aes.NewCipher(k.Sum(nil)) // 32 bytes: AES-256, never an error
	if err != nil {
		panic(err)
	}
	return &Cursors{key: append([]byte(nil), key...), enc: block}
}

func (cs *Cursors) mac(scope string, payload []byte) []byte {
	m := hmac.New(sha256.New, cs.key)
	m.Write([]byte(scope))
	m.Write([]byte{0})
	m.Write(payload)
	return m.Sum(nil)[:cursorMACLen]
}

// AcceptPlain sets which cursors in the clear Decode accepts: those whose
// position rule allows, for their scope. A sealed cursor's tag is the tag
// its position has in the clear, so a cursor in the clear with a guessed
// position and a sealed cursor's tag is accepted exactly when the guess is
// that cursor's position: rule must refuse every position whose cursors
// are not to be guessed (the change feed's, changes.PlainCursorRule).
// Call it before the codec is used.
func (cs *Cursors) AcceptPlain(rule func(scope string, c Cursor) bool) { cs.plain = rule }

// crypt encrypts or decrypts payload in place with the tag as the IV.
func (cs *Cursors) crypt(tag, payload []byte) {
	cipher.NewCTR(cs.enc, tag).XORKeyStream(payload, payload)
}

// Encode returns the opaque form of c for scope.
func (cs *Cursors) Encode(scope string, c Cursor) string {
	buf := make([]byte, cursorPayloadLen, cursorPayloadLen+cursorMACLen)
	binary.BigEndian.PutUint64(buf[:8], uint64(c.CreatedAt.UnixMicro()))
	copy(buf[8:], c.ID[:])
	tag := cs.mac(scope, buf)
	cs.crypt(tag, buf)
	buf = append(buf, tag...)
	return base64.RawURLEncoding.EncodeToString(buf)
}

// cursorTextLen is the length of every cursor Encode writes.
var cursorTextLen = base64.RawURLEncoding.EncodedLen(cursorPayloadLen + cursorMACLen)

// ErrBadCursor is the 422 for a cursor that is not one of ours.
var ErrBadCursor = errs.InvalidField("cursor",
	"is not a valid cursor for this list: a cursor goes on only with the list, the filters and the organization it was made with")

// Decode verifies and decodes s for scope.
func (cs *Cursors) Decode(scope, s string) (Cursor, error) {
	// One spelling per cursor (docs/decisions.md: a cursor with any byte
	// changed is refused): exactly Encode's length, since the decoder
	// skips CR and LF wherever they are, even in strict mode; and strict,
	// so that a character's bits past the data are zero, as Encode leaves
	// them.
	if len(s) != cursorTextLen {
		return Cursor{}, ErrBadCursor
	}
	buf, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || len(buf) != cursorPayloadLen+cursorMACLen {
		return Cursor{}, ErrBadCursor
	}
	sealed, tag := buf[:cursorPayloadLen], buf[cursorPayloadLen:]
	payload := append([]byte(nil), sealed...)
	cs.crypt(tag, payload)
	if hmac.Equal(tag, cs.mac(scope, payload)) {
		return cursorOf(payload), nil
	}
	// A cursor issued before sealing: the payload in the clear. Its
	// position is checked against the rule before its tag, so a position
	// the rule refuses is refused alike whether the tag would match or not.
	c := cursorOf(sealed)
	if cs.plain != nil && !cs.plain(scope, c) {
		return Cursor{}, ErrBadCursor
	}
	if !hmac.Equal(tag, cs.mac(scope, sealed)) {
		return Cursor{}, ErrBadCursor
	}
	return c, nil
}

// cursorOf reads a payload: created_at in microseconds, then the id.
func cursorOf(payload []byte) Cursor {
	var c Cursor
	c.CreatedAt = time.UnixMicro(int64(binary.BigEndian.Uint64(payload[:8]))).UTC()
	copy(c.ID[:], payload[8:])
	return c
}
