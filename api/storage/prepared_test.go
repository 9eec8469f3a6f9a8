package storage

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/eventapi/eventapi/tenancy"
)

// TestParamEncodesUUIDInBinary: an organization or record id reaches pgx in
// a form it encodes in the binary format directly: the same 16 bytes, at
// most one allocation. Both uuid.UUID and
// OrganizationID, as driver.Valuers, take 19: their string, a failed binary
// attempt whose error is built with fmt.Errorf, and a parse. Other values
// pass unchanged.
func TestParamEncodesUUIDInBinary(t *testing.T) {
	id := uuid.MustParse("0b6f4a52-94f2-4c0e-9d8a-3c1f6e2b7a10")
	m := pgtype.NewMap()
	for _, tc := range []struct {
		name string
		v    any
	}{
		{"uuid", id},
		{"organization", tenancy.OrganizationID{UUID: id}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf, err := m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, param(tc.v), nil)
			if err != nil {
				t.Fatalf("binary encoding of param(%T): %v", tc.v, err)
			}
			if !bytes.Equal(buf, id[:]) {
				t.Fatalf("encoded %x, want %x", buf, id[:])
			}
			p := param(tc.v)
			if n := testing.AllocsPerRun(100, func() {
				_, _ = m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, p, buf[:0])
			}); n > 1 {
				t.Errorf("encoding param(%T) allocates %v times, want at most 1 (the Valuer's text detour takes 19)", tc.v, n)
			}
		})
	}
	now := time.Now()
	for _, v := range []any{"lumen", int64(26), now} {
		if got := param(v); got != v {
			t.Errorf("param(%v) = %v, want it unchanged", v, got)
		}
	}
}
