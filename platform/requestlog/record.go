// Package requestlog keeps the request log: one Record per request that
// reached authentication, buffered in memory and written to PostgreSQL in
// batches by a Writer, so that logging never slows or fails a request (a
// full buffer drops the record and counts it). The table is partitioned by
// day; Maintain creates partitions ahead and drops those past the retention.
// List and Get read one organization's records. docs/observability.md
// describes what is logged and for how long.
package requestlog

import (
	"encoding/binary"
	"time"

	"github.com/google/uuid"
)

// Record is one logged request. Bodies are never logged.
type Record struct {
	ID                 uuid.UUID  `json:"id"`
	CreatedAt          time.Time  `json:"created_at"`
	OrganizationID     *uuid.UUID `json:"-"`
	RequestID          string     `json:"request_id"`
	Method             string     `json:"method"`
	Path               string     `json:"path"`
	Route              *string    `json:"route"`
	Status             int        `json:"status"`
	DurationMS         float64    `json:"duration_ms"`
	ErrorCode          *string    `json:"error_code"`
	KeyID              *uuid.UUID `json:"key_id"`
	KeyPrefix          *string    `json:"key_prefix"`
	IdempotencyKey     *string    `json:"idempotency_key"`
	IdempotentReplayed bool       `json:"idempotent_replayed"`
	IP                 *string    `json:"ip"`
	UserAgent          *string    `json:"user_agent"`
	APIVersion         string     `json:"api_version"`
}

// Length bounds applied before storing, so one odd request cannot make a
// large row.
const (
	maxPath      = 2048
	maxUserAgent = 512
	maxText      = 255
)

// Normalize truncates long text fields, rounds CreatedAt to the microsecond
// PostgreSQL keeps, and assigns the id (a UUIDv7 carrying CreatedAt's
// millisecond) when it is unset.
func (r *Record) Normalize() {
	r.CreatedAt = r.CreatedAt.UTC().Truncate(time.Microsecond)
	if r.ID == uuid.Nil {
		r.ID = NewID(r.CreatedAt)
	}
	r.Path = truncate(r.Path, maxPath)
	r.UserAgent = truncatePtr(r.UserAgent, maxUserAgent)
	r.IdempotencyKey = truncatePtr(r.IdempotencyKey, maxText)
	r.Route = truncatePtr(r.Route, maxText)
	r.ErrorCode = truncatePtr(r.ErrorCode, maxText)
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

func truncatePtr(s *string, n int) *string {
	if s == nil || len(*s) <= n {
		return s
	}
	t := truncate(*s, n)
	return &t
}
