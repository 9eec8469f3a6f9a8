package storage

import (
	"reflect"
	"sync"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/eventapi/eventapi/platform/money"
)

// A statement's scanning state (pgxRow: a cell per column, pgx's
// destinations) is kept between statements of the same model and the same
// columns, instead of being made for each: a detail read made it for one
// row, and it was about two fifths of the bytes a detail request allocated
// (catbench -memprofile-chain). What a statement hands to its records (the
// chunks of chars and the slabs) is never kept: the records hold it.

// rowPools holds a pool of scanning states per model type.
var rowPools sync.Map // reflect.Type → *sync.Pool

// columnSig is what a scanning state was planned for, per column.
type columnSig struct {
	name   string
	oid    uint32
	format int16
}

// acquirePgxRow returns a scanning state of T for the columns fds: a kept
// one planned for the same columns, or a new one. Give it back with release.
func acquirePgxRow[T any](fds []pgconn.FieldDescription) (*pgxRow, error) {
	t := reflect.TypeFor[T]()
	pool := poolOf(t)
	if r, _ := pool.Get().(*pgxRow); r != nil && r.fits(fds) {
		return r, nil
	}
	r, err := newPgxRow[T](fds)
	if err != nil {
		return nil, err
	}
	r.pool = pool
	r.sig = make([]columnSig, len(fds))
	for i, fd := range fds {
		r.sig[i] = columnSig{fd.Name, fd.DataTypeOID, fd.Format}
	}
	return r, nil
}

func poolOf(t reflect.Type) *sync.Pool {
	if p, ok := rowPools.Load(t); ok {
		return p.(*sync.Pool)
	}
	p, _ := rowPools.LoadOrStore(t, new(sync.Pool))
	return p.(*sync.Pool)
}

// fits reports whether r was planned for the columns fds.
func (r *pgxRow) fits(fds []pgconn.FieldDescription) bool {
	if len(r.sig) != len(fds) {
		return false
	}
	for i, fd := range fds {
		if s := r.sig[i]; s.name != fd.Name || s.oid != fd.DataTypeOID || s.format != fd.Format {
			return false
		}
	}
	return true
}

// release keeps r for the model's next statement, without anything that
// belongs to the records it scanned or that would keep them alive.
func (r *pgxRow) release() {
	if r.pool == nil {
		return
	}
	r.chars = chars{}
	r.strings, r.bools, r.uuids = slab[string]{}, slab[bool]{}, slab[uuid.UUID]{}
	r.ints, r.floats, r.amounts = slab[int]{}, slab[float64]{}, slab[money.Amount]{}
	for i := range r.cells {
		c := &r.cells[i]
		c.text, c.ts, c.texts = pgtype.Text{}, pgtype.Timestamptz{}, nil
		c.col.strct = reflect.Value{}
	}
	r.pool.Put(r)
}
