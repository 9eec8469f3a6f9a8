package database

import (
	"context"

	"github.com/uptrace/bun"
)

// DeleteInBatches runs query, a DELETE of at most batch rows (its last
// argument is the batch, args the ones before it), again and again until a
// run deletes fewer, and returns how many rows it deleted in all. Each run
// is a statement of its own (its own transaction on a pool), so a purge of
// any backlog stays within the statement timeout and holds no transaction
// id for long. The retention purges use it.
func DeleteInBatches(ctx context.Context, db bun.IDB, batch int, query string, args ...any) (int64, error) {
	var total int64
	args = append(args[:len(args):len(args)], batch)
	for {
		res, err := db.NewRaw(query, args...).Exec(ctx)
		if err != nil {
			return total, Error(err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, err
		}
		total += n
		if n < int64(batch) {
			return total, nil
		}
	}
}
