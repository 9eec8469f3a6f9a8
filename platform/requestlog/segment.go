package requestlog

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Records are stored in segments (docs/observability.md, "Storage"): one
// row of request_log_segments per flush and (organization, key, key prefix,
// API version), holding the records as parallel arrays in (created_at, id)
// order. A segment is cut when it would span more than MaxSpan or hold more
// than MaxSegment records.

// MaxSpan is the longest a segment spans, from its first record's
// created_at to its last's. Readers rely on it: a record at instant t is in a
// segment whose last_at lies in [t, t+MaxSpan] (migration
// 20261128010000_request_log_segments).
const MaxSpan = time.Minute

// MaxSegment is the most records one segment holds, so one busy
// organization's flush is still several rows of bounded size.
const MaxSegment = 1000

// segmentColumns are request_log_segments' columns in the order
// appendSegment writes them.
var segmentColumns = []string{"organization_id", "key_id", "key_prefix", "api_version", "first_at", "last_at",
	"error_count", "ids", "created_ats", "request_ids", "methods", "paths", "routes", "statuses", "durations_ms",
	"error_codes", "idempotency_keys", "replayed", "ips", "user_agents"}

// copySQL is the statement the encoded segments are sent with.
var copySQL = "COPY request_log_segments (" + strings.Join(segmentColumns, ", ") + ") FROM STDIN BINARY"

// Element type OIDs of the arrays (pg_type), which PostgreSQL checks on receipt.
const (
	oidBool        = 16
	oidInt2        = 21
	oidText        = 25
	oidFloat8      = 701
	oidTimestampTZ = 1184
	oidUUID        = 2950
)

// segmentOrder sorts records by segment (organization, key, key prefix, API
// version) and then by (created_at, id), so that each segment is a run.
func segmentOrder(a, b *Record) int {
	if c := compareUUID(a.OrganizationID, b.OrganizationID); c != 0 {
		return c
	}
	if c := compareUUID(a.KeyID, b.KeyID); c != 0 {
		return c
	}
	if c := compareText(a.KeyPrefix, b.KeyPrefix); c != 0 {
		return c
	}
	if c := strings.Compare(a.APIVersion, b.APIVersion); c != 0 {
		return c
	}
	if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
		return c
	}
	return bytes.Compare(a.ID[:], b.ID[:])
}

func sameSegment(a, b *Record) bool {
	return compareUUID(a.OrganizationID, b.OrganizationID) == 0 && compareUUID(a.KeyID, b.KeyID) == 0 &&
		compareText(a.KeyPrefix, b.KeyPrefix) == 0 && a.APIVersion == b.APIVersion
}

// compareUUID orders nil first.
func compareUUID(a, b *uuid.UUID) int {
	switch {
	case a == nil || b == nil:
		return cmp.Compare(boolInt(a != nil), boolInt(b != nil))
	default:
		return bytes.Compare(a[:], b[:])
	}
}

// compareText orders nil first.
func compareText(a, b *string) int {
	switch {
	case a == nil || b == nil:
		return cmp.Compare(boolInt(a != nil), boolInt(b != nil))
	default:
		return strings.Compare(*a, *b)
	}
}

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

// segments returns the records of chunks grouped into segments, each in
// (created_at, id) order; *scratch is the sort's space, kept for the caller
// to reuse.
func segments(chunks [][]Record, scratch *[]*Record) [][]*Record {
	order := (*scratch)[:0]
	for _, c := range chunks {
		for i := range c {
			order = append(order, &c[i])
		}
	}
	*scratch = order
	slices.SortFunc(order, segmentOrder)
	var out [][]*Record
	start := 0
	for i := 1; i <= len(order); i++ {
		if i < len(order) && i-start < MaxSegment && sameSegment(order[start], order[i]) &&
			order[i].CreatedAt.Sub(order[start].CreatedAt) <= MaxSpan {
			continue
		}
		out = append(out, order[start:i])
		start = i
	}
	return out
}

// isIDText reports whether s is id in its canonical text form (lower-case,
// hyphenated), the request id every record of the app carries.
func isIDText(s string, id uuid.UUID) bool {
	if len(s) != 36 {
		return false
	}
	const digits = "0123456789abcdef"
	j := 0
	for i, c := range []byte(s) {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
			continue
		}
		d := id[j/2] >> 4
		if j%2 == 1 {
			d = id[j/2] & 0x0f
		}
		if c != digits[d] {
			return false
		}
		j++
	}
	return true
}

// appendCopy appends the records of chunks, grouped into segments
// (*scratch is the sort's space), as a complete binary COPY stream for
// copySQL (PostgreSQL's "Binary Format" of COPY: a
// signature and two zero words, then per row the field count and each field
// as its byte length, -1 for NULL, and bytes, then a trailer of -1; an
// array field is array_send's layout: dimensions, a has-nulls flag, the
// element type, the dimension's length and lower bound, then each element
// as its length and bytes).
func appendCopy(b []byte, chunks [][]Record, scratch *[]*Record) []byte {
	b = append(b, copySignature...)
	b = binary.BigEndian.AppendUint32(b, 0) // flags
	b = binary.BigEndian.AppendUint32(b, 0) // header extension length
	for _, seg := range segments(chunks, scratch) {
		b = appendSegment(b, seg)
	}
	return binary.BigEndian.AppendUint16(b, 0xffff) // trailer: -1
}

// copySignature starts every binary COPY stream.
const copySignature = "PGCOPY\n\xff\r\n\x00"

// pgEpochMicros is 2000-01-01 00:00:00 UTC, PostgreSQL's timestamp epoch,
// in microseconds since the Unix epoch.
const pgEpochMicros = 946_684_800_000_000

// appendSegment appends one row of request_log_segments holding seg, which
// is in (created_at, id) order and shares the segment's scalar columns.
func appendSegment(b []byte, seg []*Record) []byte {
	first, last := seg[0], seg[len(seg)-1]
	errors := 0
	for _, r := range seg {
		if r.Status >= 400 {
			errors++
		}
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(segmentColumns)))
	b = appendUUID(b, first.OrganizationID)
	b = appendUUID(b, first.KeyID)
	b = appendTextPtr(b, first.KeyPrefix)
	b = appendText(b, first.APIVersion)
	b = appendTime(b, first.CreatedAt)
	b = appendTime(b, last.CreatedAt)
	b = binary.BigEndian.AppendUint32(b, 4)
	b = binary.BigEndian.AppendUint32(b, uint32(errors))

	b = appendArray(b, seg, oidUUID, func(b []byte, r *Record) []byte { return appendUUID(b, &r.ID) })
	b = appendArray(b, seg, oidTimestampTZ, func(b []byte, r *Record) []byte { return appendTime(b, r.CreatedAt) })
	if slices.ContainsFunc(seg, func(r *Record) bool { return !isIDText(r.RequestID, r.ID) }) {
		b = appendArray(b, seg, oidText, func(b []byte, r *Record) []byte { return appendText(b, r.RequestID) })
	} else {
		b = appendNull(b)
	}
	b = appendArray(b, seg, oidText, func(b []byte, r *Record) []byte { return appendText(b, r.Method) })
	b = appendArray(b, seg, oidText, func(b []byte, r *Record) []byte { return appendText(b, r.Path) })
	b = appendTextArray(b, seg, func(r *Record) *string { return r.Route })
	b = appendArray(b, seg, oidInt2, func(b []byte, r *Record) []byte {
		b = binary.BigEndian.AppendUint32(b, 2)
		return binary.BigEndian.AppendUint16(b, uint16(int16(r.Status)))
	})
	b = appendArray(b, seg, oidFloat8, func(b []byte, r *Record) []byte {
		return appendInt64(b, int64(math.Float64bits(r.DurationMS)))
	})
	b = appendTextArray(b, seg, func(r *Record) *string { return r.ErrorCode })
	b = appendTextArray(b, seg, func(r *Record) *string { return r.IdempotencyKey })
	if slices.ContainsFunc(seg, func(r *Record) bool { return r.IdempotentReplayed }) {
		b = appendArray(b, seg, oidBool, func(b []byte, r *Record) []byte {
			b = binary.BigEndian.AppendUint32(b, 1)
			return append(b, byte(boolInt(r.IdempotentReplayed)))
		})
	} else {
		b = appendNull(b)
	}
	b = appendTextArray(b, seg, func(r *Record) *string { return r.IP })
	return appendTextArray(b, seg, func(r *Record) *string { return r.UserAgent })
}

// appendArray appends a one-dimensional array field of seg's elements, each
// appended (length and bytes) by elem.
func appendArray(b []byte, seg []*Record, oid uint32, elem func([]byte, *Record) []byte) []byte {
	return appendArrayNulls(b, seg, oid, false, elem)
}

// appendTextArray appends a text array, NULL (the whole field) when every
// element is NULL: unnest reads a NULL array as a column of NULLs.
func appendTextArray(b []byte, seg []*Record, field func(*Record) *string) []byte {
	nulls := 0
	for _, r := range seg {
		if field(r) == nil {
			nulls++
		}
	}
	if nulls == len(seg) {
		return appendNull(b)
	}
	return appendArrayNulls(b, seg, oidText, nulls > 0, func(b []byte, r *Record) []byte {
		return appendTextPtr(b, field(r))
	})
}

func appendArrayNulls(b []byte, seg []*Record, oid uint32, hasNull bool, elem func([]byte, *Record) []byte) []byte {
	at := len(b)
	b = binary.BigEndian.AppendUint32(b, 0) // the field's length, set below
	b = binary.BigEndian.AppendUint32(b, 1) // dimensions
	b = binary.BigEndian.AppendUint32(b, uint32(boolInt(hasNull)))
	b = binary.BigEndian.AppendUint32(b, oid)
	b = binary.BigEndian.AppendUint32(b, uint32(len(seg)))
	b = binary.BigEndian.AppendUint32(b, 1) // lower bound
	for _, r := range seg {
		b = elem(b, r)
	}
	binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return b
}

// appendNull appends a NULL field.
func appendNull(b []byte) []byte { return binary.BigEndian.AppendUint32(b, 0xffffffff) }

// appendUUID appends a uuid field, NULL for nil.
func appendUUID(b []byte, id *uuid.UUID) []byte {
	if id == nil {
		return appendNull(b)
	}
	b = binary.BigEndian.AppendUint32(b, 16)
	return append(b, id[:]...)
}

// appendTime appends a timestamptz field (microseconds since 2000-01-01 UTC).
func appendTime(b []byte, t time.Time) []byte { return appendInt64(b, t.UnixMicro()-pgEpochMicros) }

// appendInt64 appends an eight-byte field (bigint, timestamptz, float8 bits).
func appendInt64(b []byte, v int64) []byte {
	b = binary.BigEndian.AppendUint32(b, 8)
	return binary.BigEndian.AppendUint64(b, uint64(v))
}

// appendText appends a text field; Normalize has made s valid UTF-8 without
// NUL, which PostgreSQL checks again on receipt.
func appendText(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// appendTextPtr appends a text field, NULL for nil.
func appendTextPtr(b []byte, s *string) []byte {
	if s == nil {
		return appendNull(b)
	}
	return appendText(b, *s)
}
