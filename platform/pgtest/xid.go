package pgtest

import (
	"context"
	"strconv"
	"testing"

	"github.com/uptrace/bun"
)

// TransactionIDsPast makes every transaction id up to n a finished one: it
// starts and commits transactions until the server's next id is past n,
// then waits until no transaction of an id up to n is still running (the
// snapshot's xmin is past n). A test that writes change-feed positions of
// its own (xid8 values, which the feed lists only below its horizon, the
// xmin: docs/changes.md, "Why a reader never misses a change") calls it
// first: on a server started moments ago, as on a fresh CI machine, the
// ids have not reached the positions such a test writes, and the feed
// would hide them. Transaction ids are the server's, shared by its
// databases, so once past n they stay past it.
func TransactionIDsPast(tb testing.TB, db bun.IDB, n int64) {
	tb.Helper()
	limit := strconv.FormatInt(n, 10)
	// A DO block may COMMIT when it is not run inside a transaction block:
	// one statement runs as many transactions as it takes.
	if _, err := db.ExecContext(context.Background(), `DO $$ BEGIN
		WHILE pg_current_xact_id()::text::bigint <= `+limit+` LOOP COMMIT; END LOOP;
		COMMIT;
		WHILE pg_snapshot_xmin(pg_current_snapshot())::text::bigint <= `+limit+` LOOP
			PERFORM pg_sleep(0.01); COMMIT;
		END LOOP;
	END $$`); err != nil {
		tb.Fatalf("pgtest: taking transaction ids past %d: %v", n, err)
	}
}
