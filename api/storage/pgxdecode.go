package storage

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// rawDecoded reports whether a column of kind k is decoded by decode
// rather than by pgx: text in either format (both are the text's bytes,
// which pgx copies into a string of its own), and the fixed-size binary
// forms of uuid, bool, integers and floats. pgx's Scan takes a type switch,
// a plan and an interface call per column, and a string allocation per
// text; here the bytes are read directly, as pgx reads them, and strings
// share chunks (chars). Timestamps, arrays and text forms stay with pgx.
func rawDecoded(k fieldKind, fd pgconn.FieldDescription) bool {
	switch k {
	case kindString, kindStringPtr:
		return true
	case kindUUID, kindUUIDPtr, kindBool, kindBoolPtr, kindInt, kindIntPtr, kindFloat, kindFloatPtr:
		return fd.Format == pgx.BinaryFormatCode
	}
	return false
}

// decode sets the cell's pgtype value from the column's raw value src (nil
// for NULL) as pgx's binary (or, for text, either) decoding sets it, its
// errors on a wrong length included.
func (r *pgxRow) decode(c *cell, src []byte) error {
	switch c.kind {
	case kindString, kindStringPtr:
		c.text = pgtype.Text{String: r.chars.string(src), Valid: src != nil}
	case kindUUID, kindUUIDPtr:
		c.u = pgtype.UUID{}
		if src != nil {
			if len(src) != 16 {
				return fmt.Errorf("invalid length for UUID: %v", len(src))
			}
			c.u = pgtype.UUID{Bytes: [16]byte(src), Valid: true}
		}
	case kindBool, kindBoolPtr:
		c.b = pgtype.Bool{}
		if src != nil {
			if len(src) != 1 {
				return fmt.Errorf("invalid length for bool: %v", len(src))
			}
			c.b = pgtype.Bool{Bool: src[0] == 1, Valid: true}
		}
	case kindInt, kindIntPtr:
		c.i = pgtype.Int8{}
		if src != nil {
			var n int64
			switch {
			case c.oid == pgtype.Int2OID && len(src) == 2:
				n = int64(int16(binary.BigEndian.Uint16(src)))
			case c.oid == pgtype.Int4OID && len(src) == 4:
				n = int64(int32(binary.BigEndian.Uint32(src)))
			case c.oid == pgtype.Int8OID && len(src) == 8:
				n = int64(binary.BigEndian.Uint64(src))
			default:
				return fmt.Errorf("invalid length for integer type %d: %v", c.oid, len(src))
			}
			c.i = pgtype.Int8{Int64: n, Valid: true}
		}
	case kindFloat, kindFloatPtr:
		c.f = pgtype.Float8{}
		if src != nil {
			var f float64
			switch {
			case c.oid == pgtype.Float4OID && len(src) == 4:
				f = float64(math.Float32frombits(binary.BigEndian.Uint32(src)))
			case c.oid == pgtype.Float8OID && len(src) == 8:
				f = math.Float64frombits(binary.BigEndian.Uint64(src))
			default:
				return fmt.Errorf("invalid length for float type %d: %v", c.oid, len(src))
			}
			c.f = pgtype.Float8{Float64: f, Valid: true}
		}
	}
	return nil
}
