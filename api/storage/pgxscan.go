package storage

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/money"
)

// On a pool (not in a transaction), the parameterised statements of this
// package run on pgx itself rather than through database/sql: database/sql
// has pgx turn every column into a driver.Value (a uuid into its 36-byte
// string, parsed back by uuid.Scan; every value boxed into an interface) and
// then converts it again for the destination, which was most of a 1000-item
// manifest's scanning (bench/HISTORY.md). Here each column is decoded from
// PostgreSQL's binary format into a pgtype value held per column, by pgx or,
// for texts and the fixed-size types, from its raw bytes (rawDecoded), and
// the value is stored in its field, so a record comes out exactly as bun scans it
// (TestScanMatchesBun): NULL as the zero value or a nil pointer, a text[]
// into a []string field tagged array, a binary numeric into a money.Amount
// (the pooler's exec mode reads results as text: then the amount's own
// Scan). A column of any other kind goes through the field's bun scanner
// with the value pgx gives database/sql.
// A model with scan hooks, or with a field bun encodes itself (JSON, an
// array of anything but text), stays on database/sql.

// Kinds only the pgx path stores itself: a []string field tagged array
// (database/sql hands bun the array's text), and a money amount read from
// the numeric's binary form (database/sql has pgx write it as text for the
// amount's Scan to parse).
const (
	kindStrings fieldKind = 255 - iota
	kindMoney
	kindMoneyPtr
)

// pgxKinds are the field types of the kinds above but kindStrings.
var pgxKinds = map[reflect.Type]fieldKind{
	reflect.TypeFor[money.Amount]():  kindMoney,
	reflect.TypeFor[*money.Amount](): kindMoneyPtr,
}

// rows is a statement's result: database/sql's, or pgx's when the statement
// ran on a pool connection directly.
type rows struct {
	sql *sql.Rows
	pgx pgx.Rows
}

func (r rows) next() bool {
	if r.pgx != nil {
		return r.pgx.Next()
	}
	return r.sql.Next()
}

func (r rows) err() error {
	if r.pgx != nil {
		return r.pgx.Err()
	}
	return r.sql.Err()
}

// pgxReady caches whether a model type may be scanned by pgx.
var pgxReady sync.Map // reflect.Type → bool

// pgxScannable reports whether T's rows may be scanned on the pgx path.
func pgxScannable[T any]() bool {
	typ := reflect.TypeFor[T]()
	if v, ok := pgxReady.Load(typ); ok {
		return v.(bool)
	}
	ok := scannableByPgx(scanner.Table(typ))
	pgxReady.Store(typ, ok)
	return ok
}

func scannableByPgx(t *schema.Table) bool {
	if t.HasBeforeScanRowHook() || t.HasAfterScanRowHook() {
		return false
	}
	for _, f := range t.Fields {
		switch {
		case plainTag(f), isTextArray(f):
		case typeOption(f) == "numeric" && plainTagBut(f, "type"):
			// a money.Amount is decoded by kindMoney; any other type's
			// scanner reads the numeric's text
		default:
			return false
		}
	}
	return true
}

// isTextArray reports whether f is a []string tagged array and nothing else
// bun encodes, which the pgx path stores itself (kindStrings).
func isTextArray(f *schema.Field) bool {
	_, isArray := f.Tag.Options["array"]
	return isArray && f.StructField.Type == reflect.TypeFor[[]string]() && len(f.Index) == 1 && plainTagBut(f, "array")
}

// typeOption returns the field's type:… tag option, or "".
func typeOption(f *schema.Field) string {
	if vs := f.Tag.Options["type"]; len(vs) == 1 {
		return strings.ToLower(vs[0])
	}
	return ""
}

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

// slab hands out pointers to values of V carved from chunks, so the
// pointer fields of a page of records cost one allocation per chunk rather
// than one per field (the chunks double from 8 to 256 values, so one record
// holds little). A chunk lives as long as any record pointing into it: all
// of a statement's records go out in one response together.
type slab[V any] struct {
	free []V
	next int
}

// ptr returns a pointer to a copy of v, or nil when !valid (NULL).
func (s *slab[V]) ptr(valid bool, v V) *V {
	if !valid {
		return nil
	}
	if len(s.free) == 0 {
		s.next = min(max(2*s.next, 8), 256)
		s.free = make([]V, s.next)
	}
	p := &s.free[0]
	*p = v
	s.free = s.free[1:]
	return p
}

// chars hands out strings whose bytes are carved from chunks, as slab
// hands out pointers: the text columns of a page of records cost one
// allocation per chunk rather than one per value (a 1000-item manifest
// has about 3,000 texts). The chunks double from 256 bytes to 16 KiB; a
// text of more than a quarter of that has an allocation of its own. A
// chunk's bytes are never written again once a string holds them, and a
// chunk lives as long as any string in it: all of a statement's records go
// out in one response together.
type chars struct {
	free []byte
	next int
}

const maxCharsChunk = 16 << 10

// string returns a string of b's bytes.
func (s *chars) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > len(s.free) {
		if len(b) > maxCharsChunk/4 {
			return string(b)
		}
		s.next = min(max(2*s.next, 256), maxCharsChunk)
		s.free = make([]byte, max(s.next, len(b)))
	}
	p := s.free[:len(b):len(b)]
	copy(p, b)
	s.free = s.free[len(b):]
	return unsafe.String(&p[0], len(p))
}

// pgxScanAll appends every row to items and returns the rows' size: the
// sum of the lengths of their raw values, as PostgreSQL sent them.
func pgxScanAll[T any](rs pgx.Rows, items *[]T) (int, error) {
	r, err := acquirePgxRow[T](rs.FieldDescriptions())
	if err != nil {
		return 0, err
	}
	defer r.release()
	n := 0
	for rs.Next() {
		if err := r.scan(rs, next(items)); err != nil {
			return 0, err
		}
		for _, v := range rs.RawValues() {
			n += len(v)
		}
	}
	return n, rs.Err()
}

// onPgx runs text on a connection of db's pool through pgx itself and
// hands the rows to scan.
func onPgx(ctx context.Context, db *bun.DB, text string, args []any, scan func(context.Context, rows) error) error {
	conn, err := db.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		pc := database.PgxConn(dc)
		if pc == nil {
			return errors.New("storage: the pool's connections are not pgx")
		}
		rs, err := pc.Query(ctx, text, args...)
		if err != nil {
			return err
		}
		defer rs.Close()
		if err := scan(ctx, rows{pgx: rs}); err != nil {
			return err
		}
		rs.Close()
		return rs.Err()
	})
}
