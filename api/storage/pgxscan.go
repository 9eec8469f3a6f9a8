package storage

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
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
