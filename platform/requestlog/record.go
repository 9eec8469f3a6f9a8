// Package requestlog keeps the request log: one Record per request that
// reached authentication, buffered in memory and written to PostgreSQL in
// batches by a Writer, so that logging never slows or fails a request (a
// full buffer drops the record and counts it). The table is partitioned by
// day; Maintain creates partitions ahead and drops those past the retention.
// api/storage/requestlogs reads one organization's records (List, Get).
// docs/observability.md describes what is logged and for how long.
package requestlog

import (
	"encoding/binary"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Record is one logged request, as written and as read back
// (api/storage/requestlogs: List, Get).
// Bodies are never logged.
type Record struct {
	ID                 uuid.UUID  `bun:"id" json:"id"`
	CreatedAt          time.Time  `bun:"created_at" json:"created_at"`
	OrganizationID     *uuid.UUID `bun:"-" json:"-"`
	RequestID          string     `bun:"request_id" json:"request_id"`
	Method             string     `bun:"method" json:"method"`
	Path               string     `bun:"path" json:"path"`
	Route              *string    `bun:"route" json:"route"`
	Status             int        `bun:"status" json:"status"`
	DurationMS         float64    `bun:"duration_ms" json:"duration_ms"`
	ErrorCode          *string    `bun:"error_code" json:"error_code"`
	KeyID              *uuid.UUID `bun:"key_id" json:"key_id"`
	KeyPrefix          *string    `bun:"key_prefix" json:"key_prefix"`
	IdempotencyKey     *string    `bun:"idempotency_key" json:"idempotency_key"`
	IdempotentReplayed bool       `bun:"idempotent_replayed" json:"idempotent_replayed"`
	IP                 *string    `bun:"ip" json:"ip"`
	UserAgent          *string    `bun:"user_agent" json:"user_agent"`
	APIVersion         string     `bun:"api_version" json:"api_version"`
}

// MaxPath is the most bytes of a request's path that are logged: the path
// is the client's text, up to the server's URI bound (kilobytes), and one
// odd request must not make a large row or log line (the access log cuts
// it too).
const MaxPath = 2048

// Length bounds applied before storing, so one odd request cannot make a
// large row.
const (
	maxUserAgent = 512
	maxText      = 255
)

// Normalize makes every text field storable and bounded, rounds CreatedAt
// to the microsecond PostgreSQL keeps, and assigns the id (a UUIDv7
// carrying CreatedAt's millisecond) when it is unset.
//
// The path and headers are the client's bytes. PostgreSQL's text refuses
// invalid UTF-8 and NUL, and refuses them for the whole COPY, so one such
// request would cost every record of its batch; each such byte (a run of
// invalid bytes, or a NUL) is stored as U+FFFD instead.
func (r *Record) Normalize() {
	r.CreatedAt = r.CreatedAt.UTC().Truncate(time.Microsecond)
	if r.ID == uuid.Nil {
		r.ID = NewID(r.CreatedAt)
	}
	r.RequestID = storable(r.RequestID, maxText)
	r.Method = storable(r.Method, maxText)
	r.Path = storable(r.Path, MaxPath)
	r.APIVersion = storable(r.APIVersion, maxText)
	for _, f := range []struct {
		s   **string
		max int
	}{{&r.UserAgent, maxUserAgent}, {&r.IdempotencyKey, maxText}, {&r.Route, maxText},
		{&r.ErrorCode, maxText}, {&r.KeyPrefix, maxText}, {&r.IP, maxText}} {
		if *f.s != nil {
			if t := storable(**f.s, f.max); t != **f.s {
				changed := t // declared here, so only a changed value is allocated
				*f.s = &changed
			}
		}
	}
}

// storable returns s as PostgreSQL text can hold it (invalid UTF-8 and NUL
// replaced by U+FFFD), cut to at most n bytes on a rune boundary.
func storable(s string, n int) string {
	return truncate(ValidText(s), n)
}

// ValidText returns s with each run of invalid UTF-8 bytes, and each NUL,
// replaced by U+FFFD; s itself, without allocating, when it has neither.
// The client's bytes (a path, a header) pass through it wherever a whole
// batch refuses one bad string: PostgreSQL's COPY here, and the OTLP
// exporter's protobuf, whose strings must be valid UTF-8 (the tracing
// middleware's span attributes and names).
func ValidText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return s
}

// NewID returns a UUIDv7 whose timestamp is t's millisecond.
func NewID(t time.Time) uuid.UUID {
	id, err := uuid.NewV7()
	if err != nil {
		id = uuid.New()
		id[6] = id[6]&0x0f | 0x70
		id[8] = id[8]&0x3f | 0x80
	}
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(t.UnixMilli()))
	copy(id[0:6], ms[2:8])
	return id
}

// IDTime returns the millisecond a UUIDv7 id carries, and false for any
// other id.
func IDTime(id uuid.UUID) (time.Time, bool) {
	if id.Version() != 7 {
		return time.Time{}, false
	}
	var ms [8]byte
	copy(ms[2:8], id[0:6])
	return time.UnixMilli(int64(binary.BigEndian.Uint64(ms[:]))).UTC(), true
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Cut on a rune boundary so the text stays valid UTF-8.
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}
