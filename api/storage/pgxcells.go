package storage

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/eventapi/eventapi/platform/money"
)

// On the pgx path a statement's rows are scanned through a cell per
// column: pgx, or decode (pgxdecode.go), sets the cell's pgtype value, and
// store puts it into the model's field.

// cell is one column's decoding target on the pgx path.
type cell struct {
	kind   fieldKind
	offset uintptr
	// raw: the column is decoded here from its raw value (rawDecoded),
	// not by pgx; oid is its type
	raw   bool
	oid   uint32
	text  pgtype.Text
	b     pgtype.Bool
	ts    pgtype.Timestamptz
	i     pgtype.Int8
	f     pgtype.Float8
	u     pgtype.UUID
	texts pgtype.FlatArray[pgtype.Text]
	col   column // the field's bun scanner, for any other column
}

// oidKinds are the column types each kind's pgtype value decodes.
var oidKinds = map[fieldKind][]uint32{
	kindString:    {pgtype.TextOID, pgtype.VarcharOID},
	kindStringPtr: {pgtype.TextOID, pgtype.VarcharOID},
	kindBool:      {pgtype.BoolOID},
	kindBoolPtr:   {pgtype.BoolOID},
	kindTime:      {pgtype.TimestamptzOID},
	kindUUID:      {pgtype.UUIDOID},
	kindUUIDPtr:   {pgtype.UUIDOID},
	kindInt:       {pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID},
	kindIntPtr:    {pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID},
	kindFloat:     {pgtype.Float4OID, pgtype.Float8OID},
	kindFloatPtr:  {pgtype.Float4OID, pgtype.Float8OID},
	kindStrings:   {pgtype.TextArrayOID, pgtype.VarcharArrayOID},
	kindMoney:     {pgtype.NumericOID},
	kindMoneyPtr:  {pgtype.NumericOID},
}

// pgxRow is the scanning state of one statement on the pgx path.
type pgxRow struct {
	cells []cell
	dest  []any
	// pool and sig: where release keeps the state, and the columns it was
	// planned for (pgxrows.go)
	pool *sync.Pool
	sig  []columnSig
	// the bytes of the statement's strings
	chars chars
	// the values of the statement's pointer fields
	strings slab[string]
	bools   slab[bool]
	uuids   slab[uuid.UUID]
	ints    slab[int]
	floats  slab[float64]
	amounts slab[money.Amount]
}

func newPgxRow[T any](fds []pgconn.FieldDescription) (*pgxRow, error) {
	names := make([]string, len(fds))
	for i, fd := range fds {
		names[i] = fd.Name
	}
	p := planFor[T](names)
	if p == nil {
		return nil, errors.New("storage: no scan plan for a pgx-scannable model")
	}
	r := &pgxRow{cells: make([]cell, len(fds)), dest: make([]any, len(fds))}
	for i := range r.cells {
		c := &r.cells[i]
		f := p.fields[i]
		c.kind = p.kinds[i]
		if isTextArray(f) {
			c.kind = kindStrings
		} else if k, ok := pgxKinds[f.StructField.Type]; ok && len(f.Index) == 1 {
			c.kind = k
		}
		if c.kind != viaBun && !slices.Contains(oidKinds[c.kind], fds[i].DataTypeOID) ||
			(c.kind == kindMoney || c.kind == kindMoneyPtr) && fds[i].Format != pgx.BinaryFormatCode {
			c.kind = viaBun
		}
		c.offset = f.StructField.Offset
		c.col = column{field: f, kind: viaBun}
		c.raw, c.oid = rawDecoded(c.kind, fds[i]), fds[i].DataTypeOID
		r.dest[i] = c.target()
	}
	return r, nil
}

// target is what pgx decodes the cell's column into.
func (c *cell) target() any {
	if c.raw {
		return nil // pgx's Scan skips it; decode reads the raw value
	}
	switch c.kind {
	case kindStrings:
		return &c.texts
	case kindString, kindStringPtr:
		return &c.text
	case kindBool, kindBoolPtr:
		return &c.b
	case kindTime:
		return &c.ts
	case kindUUID, kindUUIDPtr:
		return &c.u
	case kindInt, kindIntPtr:
		return &c.i
	case kindFloat, kindFloatPtr:
		return &c.f
	case kindMoney, kindMoneyPtr:
		return nil // decoded by store from the row's raw value
	}
	return &c.col
}

// scan scans the current row into m.
func (r *pgxRow) scan(rs pgx.Rows, m any) error {
	v := reflect.ValueOf(m).Elem()
	base := v.Addr().UnsafePointer()
	for i := range r.cells {
		if c := &r.cells[i]; c.kind == viaBun {
			c.col.strct = v
		}
	}
	if err := rs.Scan(r.dest...); err != nil {
		return err
	}
	raw := rs.RawValues()
	for i := range r.cells {
		if err := r.store(&r.cells[i], unsafe.Add(base, r.cells[i].offset), raw[i]); err != nil {
			return fmt.Errorf("storage: column %s: %w", r.cells[i].col.field.Name, err)
		}
	}
	return nil
}

// store puts the decoded value into the field at p, as bun would; raw is
// the column's undecoded value, for the kinds pgx does not decode.
func (r *pgxRow) store(c *cell, p unsafe.Pointer, raw []byte) error {
	if c.raw {
		if err := r.decode(c, raw); err != nil {
			return err
		}
	}
	switch c.kind {
	case kindMoney, kindMoneyPtr:
		return r.storeMoney(p, raw, c.kind == kindMoneyPtr)
	case kindString:
		*(*string)(p) = c.text.String
	case kindStringPtr:
		*(**string)(p) = r.strings.ptr(c.text.Valid, c.text.String)
	case kindBool:
		*(*bool)(p) = c.b.Bool
	case kindBoolPtr:
		*(**bool)(p) = r.bools.ptr(c.b.Valid, c.b.Bool)
	case kindTime:
		*(*time.Time)(p) = c.ts.Time
	case kindUUID:
		*(*uuid.UUID)(p) = c.u.Bytes
	case kindUUIDPtr:
		*(**uuid.UUID)(p) = r.uuids.ptr(c.u.Valid, uuid.UUID(c.u.Bytes))
	case kindInt:
		*(*int)(p) = int(c.i.Int64)
	case kindIntPtr:
		*(**int)(p) = r.ints.ptr(c.i.Valid, int(c.i.Int64))
	case kindFloat:
		*(*float64)(p) = c.f.Float64
	case kindFloatPtr:
		*(**float64)(p) = r.floats.ptr(c.f.Valid, c.f.Float64)
	case kindStrings:
		*(*[]string)(p) = textArray(c.texts)
	}
	// viaBun was stored by the scan itself. The pgtype values of NULL
	// columns are zero (Valid false), as bun leaves them.
	return nil
}

// storeMoney decodes a numeric's binary value into a money.Amount field (a
// pointer field when ptr): NULL as the amount's Scan takes it, zero or nil.
func (r *pgxRow) storeMoney(p unsafe.Pointer, raw []byte, ptr bool) error {
	if raw == nil {
		if ptr {
			*(**money.Amount)(p) = nil
		} else {
			*(*money.Amount)(p) = 0
		}
		return nil
	}
	a, err := money.DecodeNumeric(raw)
	if err != nil {
		return err
	}
	if ptr {
		*(**money.Amount)(p) = r.amounts.ptr(true, a)
	} else {
		*(*money.Amount)(p) = a
	}
	return nil
}

// textArray is a text array as bun scans it: nil for NULL, "" for a NULL
// element.
func textArray(a pgtype.FlatArray[pgtype.Text]) []string {
	if a == nil {
		return nil
	}
	out := make([]string, len(a))
	for i, t := range a {
		out[i] = t.String
	}
	return out
}
