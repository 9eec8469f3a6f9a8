package requestlog

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/google/uuid"
)

// The writer sends its batches in PostgreSQL's binary COPY format, encoded
// here for request_logs' seventeen columns. pgx's CopyFrom takes each row as
// seventeen interface values and looks up an encode plan for each value of
// each row: with it the log cost this process 3.8–4.4 µs per request, with
// this encoding 1.8–2.2 (bench/requestlog, docs/observability.md). The
// format is PostgreSQL's own (the COPY reference, "Binary Format"): a signature and
// two zero words, then per row the field count and each field as its byte
// length (-1 for NULL) and bytes, then a trailer of -1.
// TestBinaryCopyMatchesPgx copies the same records both ways and compares
// the stored rows.

// copyColumns are request_logs' columns in the order appendCopy writes them.
var copyColumns = []string{"id", "created_at", "organization_id", "request_id", "method", "path", "route",
	"status", "duration_ms", "error_code", "key_id", "key_prefix", "idempotency_key", "idempotent_replayed",
	"ip", "user_agent", "api_version"}

// copySQL is the statement the encoded rows are sent with.
var copySQL = "COPY request_logs (" + strings.Join(copyColumns, ", ") + ") FROM STDIN BINARY"

// copySignature starts every binary COPY stream.
const copySignature = "PGCOPY\n\xff\r\n\x00"

// pgEpochMicros is 2000-01-01 00:00:00 UTC, PostgreSQL's timestamp epoch,
// in microseconds since the Unix epoch.
const pgEpochMicros = 946_684_800_000_000

// appendCopy appends records, in copyColumns' order, as a complete binary
// COPY stream.
func appendCopy(b []byte, records []Record) []byte {
	b = append(b, copySignature...)
	b = binary.BigEndian.AppendUint32(b, 0) // flags
	b = binary.BigEndian.AppendUint32(b, 0) // header extension length
	for i := range records {
		r := &records[i]
		b = binary.BigEndian.AppendUint16(b, uint16(len(copyColumns)))
		b = appendUUID(b, &r.ID)
		b = appendInt64(b, r.CreatedAt.UnixMicro()-pgEpochMicros)
		b = appendUUID(b, r.OrganizationID)
		b = appendText(b, r.RequestID)
		b = appendText(b, r.Method)
		b = appendText(b, r.Path)
		b = appendTextPtr(b, r.Route)
		b = binary.BigEndian.AppendUint32(b, 2)
		b = binary.BigEndian.AppendUint16(b, uint16(int16(r.Status)))
		b = appendInt64(b, int64(math.Float64bits(r.DurationMS)))
		b = appendTextPtr(b, r.ErrorCode)
		b = appendUUID(b, r.KeyID)
		b = appendTextPtr(b, r.KeyPrefix)
		b = appendTextPtr(b, r.IdempotencyKey)
		b = binary.BigEndian.AppendUint32(b, 1)
		b = append(b, boolByte(r.IdempotentReplayed))
		b = appendTextPtr(b, r.IP)
		b = appendTextPtr(b, r.UserAgent)
		b = appendText(b, r.APIVersion)
	}
	return binary.BigEndian.AppendUint16(b, 0xffff) // trailer: -1
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

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}
