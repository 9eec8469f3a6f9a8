package storage

import (
	"context"
	"database/sql"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/google/uuid"
	"github.com/uptrace/bun/schema"
)

// The parameterised detail and list pages (prepared.go, list.go) scan their
// rows here instead of through bun: bun looks every column up by name and
// scans it through a chain of reflective calls for each row, 40% of the
// list's scanning (bench/HISTORY.md). Here the columns are matched to the
// model's fields once per model, and each column is a sql.Scanner that
// stores the driver's value in its field directly. Only the combinations
// bun itself handles by plain assignment take that path (a string, bool,
// int, float64 or UUID into a field of that type or a pointer to one, a
// time.Time, NULL as the zero value or a nil pointer); any other value goes
// to the field's own bun scanner, so a
// record comes out exactly as bun would scan it. A model with scan hooks, or
// a column bun does not map to a field, is scanned by bun.

// fieldKind is how a column's value is stored in its field.
type fieldKind uint8

const (
	viaBun fieldKind = iota
	kindString
	kindStringPtr
	kindBool
	kindTime
	kindUUID
	kindUUIDPtr
	kindBoolPtr
	kindInt
	kindIntPtr
	kindFloat
	kindFloatPtr
)

var kinds = map[reflect.Type]fieldKind{
	reflect.TypeFor[string]():     kindString,
	reflect.TypeFor[*string]():    kindStringPtr,
	reflect.TypeFor[bool]():       kindBool,
	reflect.TypeFor[time.Time]():  kindTime,
	reflect.TypeFor[uuid.UUID]():  kindUUID,
	reflect.TypeFor[*uuid.UUID](): kindUUIDPtr,
	reflect.TypeFor[*bool]():      kindBoolPtr,
	reflect.TypeFor[int]():        kindInt,
	reflect.TypeFor[*int]():       kindIntPtr,
	reflect.TypeFor[float64]():    kindFloat,
	reflect.TypeFor[*float64]():   kindFloatPtr,
}

// scanPlan maps the columns of a model's statement to its fields.
type scanPlan struct {
	columns []string
	fields  []*schema.Field
	kinds   []fieldKind
}

// scanPlans caches one plan per model type; a nil plan means bun scans.
var scanPlans sync.Map // reflect.Type → *scanPlan

// planFor returns the plan of T for these columns, or nil when bun must scan.
func planFor[T any](columns []string) *scanPlan {
	typ := reflect.TypeFor[T]()
	if v, ok := scanPlans.Load(typ); ok {
		p := v.(*scanPlan)
		if p == nil || slices.Equal(p.columns, columns) {
			return p
		}
		return newScanPlan(typ, columns) // another column list: not cached
	}
	p := newScanPlan(typ, columns)
	scanPlans.Store(typ, p)
	return p
}

func newScanPlan(typ reflect.Type, columns []string) *scanPlan {
	t := scanner.Table(typ)
	if t.HasBeforeScanRowHook() || t.HasAfterScanRowHook() {
		return nil
	}
	p := &scanPlan{columns: slices.Clone(columns)}
	for _, c := range columns {
		f, ok := t.FieldMap[c]
		if !ok {
			return nil
		}
		k := kinds[f.StructField.Type]
		if len(f.Index) != 1 || !plainTag(f) {
			k = viaBun
		}
		p.fields = append(p.fields, f)
		p.kinds = append(p.kinds, k)
	}
	return p
}

// plainTag reports whether the field's bun tag leaves its scanning to its
// Go type (no array, JSON or msgpack encoding).
func plainTag(f *schema.Field) bool { return plainTagBut(f, "") }

// plainTagBut is plainTag with the option named except allowed as well.
func plainTagBut(f *schema.Field, except string) bool {
	for o, vs := range f.Tag.Options {
		switch o {
		case except:
		case "pk", "nullzero", "notnull", "default", "unique", "skipupdate":
		case "type":
			for _, v := range vs {
				switch strings.ToLower(v) {
				case "uuid", "text", "varchar", "boolean", "timestamptz":
				default:
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// column scans one column into the field of the current row's struct.
type column struct {
	field *schema.Field
	kind  fieldKind
	strct reflect.Value
	// bytes, when set, is added the length of each value scanned
	bytes *int
}

// Scan implements sql.Scanner.
func (c *column) Scan(src any) error {
	if c.bytes != nil {
		*c.bytes += valueLen(src)
	}
	if c.kind == viaBun {
		return c.field.ScanValue(c.strct, src)
	}
	fv := c.strct.Field(c.field.Index[0])
	p := fv.Addr().UnsafePointer()
	switch c.kind {
	case kindString:
		switch s := src.(type) {
		case string:
			*(*string)(p) = s
			return nil
		case nil:
			*(*string)(p) = ""
			return nil
		}
	case kindStringPtr:
		switch s := src.(type) {
		case string:
			*(**string)(p) = &s
			return nil
		case nil:
			*(**string)(p) = nil
			return nil
		}
	case kindBool:
		switch b := src.(type) {
		case bool:
			*(*bool)(p) = b
			return nil
		case nil:
			*(*bool)(p) = false
			return nil
		}
	case kindTime:
		switch t := src.(type) {
		case time.Time:
			*(*time.Time)(p) = t
			return nil
		case nil:
			*(*time.Time)(p) = time.Time{}
			return nil
		}
	case kindUUID:
		return (*uuid.UUID)(p).Scan(src)
	case kindUUIDPtr:
		if src == nil {
			*(**uuid.UUID)(p) = nil
			return nil
		}
		var id uuid.UUID
		if err := id.Scan(src); err != nil {
			return err
		}
		*(**uuid.UUID)(p) = &id
		return nil
	case kindBoolPtr:
		if ok := storePtr[bool](p, src, func(b bool) bool { return b }); ok {
			return nil
		}
	case kindInt:
		switch n := src.(type) {
		case int64:
			*(*int)(p) = int(n)
			return nil
		case nil:
			*(*int)(p) = 0
			return nil
		}
	case kindIntPtr:
		if ok := storePtr[int64](p, src, func(n int64) int { return int(n) }); ok {
			return nil
		}
	case kindFloat:
		switch f := src.(type) {
		case float64:
			*(*float64)(p) = f
			return nil
		case nil:
			*(*float64)(p) = 0
			return nil
		}
	case kindFloatPtr:
		if ok := storePtr[float64](p, src, func(f float64) float64 { return f }); ok {
			return nil
		}
	}
	return c.field.ScanValue(c.strct, src)
}

// valueLen is the length of a driver value as scanAllSized counts it: a
// text's or a byte string's bytes, 0 for NULL, 8 for any other value.
func valueLen(src any) int {
	switch v := src.(type) {
	case string:
		return len(v)
	case []byte:
		return len(v)
	case nil:
		return 0
	}
	return 8
}

// storePtr stores src into the pointer field at p: nil for NULL, else a new
// value converted from src when src is an S; false for any other src.
func storePtr[S, F any](p unsafe.Pointer, src any, conv func(S) F) bool {
	switch v := src.(type) {
	case S:
		f := conv(v)
		*(**F)(p) = &f
		return true
	case nil:
		*(**F)(p) = nil
		return true
	}
	return false
}

// row is the scanning state of one statement.
type row struct {
	cols []column
	dest []any
	// bytes sums the length of the values scanned (scanAllSized)
	bytes int
}

// newRow returns the scanning state for rows, or nil when bun must scan T.
func newRow[T any](rows *sql.Rows) (*row, error) {
	names, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	p := planFor[T](names)
	if p == nil {
		return nil, nil
	}
	r := &row{cols: make([]column, len(names)), dest: make([]any, len(names))}
	for i := range r.cols {
		r.cols[i] = column{field: p.fields[i], kind: p.kinds[i], bytes: &r.bytes}
		r.dest[i] = &r.cols[i]
	}
	return r, nil
}

// scan scans the current row into m.
func (r *row) scan(rows *sql.Rows, m any) error {
	v := reflect.ValueOf(m).Elem()
	for i := range r.cols {
		r.cols[i].strct = v
	}
	return rows.Scan(r.dest...)
}

// scanAll appends every row to items, as bun's ScanRows does.
func scanAll[T any](ctx context.Context, rs rows, items *[]T) error {
	_, err := scanAllSized(ctx, rs, items)
	return err
}

// scanAllSized is scanAll, and returns the size of the rows as read
// (Page.Bytes): the sum of their values' lengths, a few additions per row.
// On the pgx path that is the raw bytes PostgreSQL sent; on database/sql's
// the driver's values (a text's bytes, 8 for any other non-NULL value);
// where bun scans, the text of the records scanned (textBytes).
func scanAllSized[T any](ctx context.Context, rs rows, items *[]T) (int, error) {
	if rs.pgx != nil {
		return pgxScanAll(rs.pgx, items)
	}
	rows := rs.sql
	r, err := newRow[T](rows)
	if err != nil {
		return 0, err
	}
	if r == nil {
		from := len(*items)
		if err := scanner.ScanRows(ctx, rows, items); err != nil {
			return 0, err
		}
		return textBytes((*items)[from:]), nil
	}
	for rows.Next() {
		if err := r.scan(rows, next(items)); err != nil {
			return 0, err
		}
	}
	return r.bytes, rows.Err()
}

// next appends a zero record to items for the next row and returns it. A
// full slice doubles, where append grows a slice of more than 256 elements
// by about a quarter at a time, so that a large read was copied into more
// and larger arrays than it needs (a manifest's load allocated 1.27 MB,
// 0.91 MB now; docs/architecture.md, "Memory").
func next[T any](items *[]T) *T {
	s := *items
	if len(s) == cap(s) {
		grown := make([]T, len(s), max(2*len(s), 8))
		copy(grown, s)
		s = grown
	}
	s = append(s, *new(T))
	*items = s
	return &s[len(s)-1]
}

// scanOne scans the current row into m, as bun's ScanRow does.
func scanOne[T any](ctx context.Context, rs rows, m *T) error {
	if rs.pgx != nil {
		r, err := acquirePgxRow[T](rs.pgx.FieldDescriptions())
		if err != nil {
			return err
		}
		defer r.release()
		return r.scan(rs.pgx, m)
	}
	rows := rs.sql
	r, err := newRow[T](rows)
	if err != nil {
		return err
	}
	if r == nil {
		return scanner.ScanRow(ctx, rows, m)
	}
	return r.scan(rows, m)
}
