package database_test

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// collide runs two transactions through database.RunInTxWith at once. Each
// first attempt calls step(0 or 1, tx) and then waits, inside its
// transaction, until the other's first attempt has done the same, so that
// both hold their snapshot or lock before either goes on; then it calls
// finish. Later attempts run straight through. It returns both results and
// the number of attempts.
func collide(t *testing.T, db *bun.DB, opts *sql.TxOptions,
	step, finish func(ctx context.Context, who int, tx bun.Tx) error) ([2]error, int32) {
	t.Helper()
	var attempts atomic.Int32
	var arrived sync.WaitGroup
	arrived.Add(2)
	bothArrived := make(chan struct{})
	go func() { arrived.Wait(); close(bothArrived) }()
	var results [2]error
	var wg sync.WaitGroup
	for who := 0; who < 2; who++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first := true
			results[who] = database.RunInTxWith(context.Background(), db, opts, func(ctx context.Context, tx bun.Tx) error {
				attempts.Add(1)
				if err := step(ctx, who, tx); err != nil {
					return err
				}
				if first {
					first = false
					arrived.Done()
					select {
					case <-bothArrived:
					case <-time.After(30 * time.Second):
						return errors.New("the other transaction never arrived")
					}
				}
				return finish(ctx, who, tx)
			})
		}()
	}
	wg.Wait()
	return results, attempts.Load()
}

func TestRunInTxRetriesRealConflicts(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE TABLE on_call (id int PRIMARY KEY, on_duty bool NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	reset := func() {
		if _, err := db.ExecContext(ctx, "TRUNCATE on_call; INSERT INTO on_call VALUES (1, false), (2, false)"); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("serialization failure of two SERIALIZABLE transactions", func(t *testing.T) {
		reset()
		// Write skew: each takes the duty only when nobody is on duty.
		// Run one after the other, exactly one row ends on duty; run
		// together, PostgreSQL aborts one with 40001 and the retry sees
		// the other's commit.
		var seen [2]int
		results, attempts := collide(t, db, &sql.TxOptions{Isolation: sql.LevelSerializable},
			func(ctx context.Context, who int, tx bun.Tx) error {
				return tx.NewRaw("SELECT count(*) FROM on_call WHERE on_duty").Scan(ctx, &seen[who])
			},
			func(ctx context.Context, who int, tx bun.Tx) error {
				if seen[who] > 0 {
					return nil
				}
				_, err := tx.ExecContext(ctx, "UPDATE on_call SET on_duty = true WHERE id = ?", who+1)
				return err
			})
		if results[0] != nil || results[1] != nil {
			t.Fatalf("a transaction failed despite the retries: %v / %v", results[0], results[1])
		}
		if attempts < 3 {
			t.Fatalf("%d attempts: the transactions did not conflict", attempts)
		}
		var n int
		if err := db.NewRaw("SELECT count(*) FROM on_call WHERE on_duty").Scan(ctx, &n); err != nil || n != 1 {
			t.Fatalf("%d rows on duty (%v), want exactly 1", n, err)
		}
	})
	t.Run("deadlock", func(t *testing.T) {
		reset()
		// Each locks its own row, then the other's: PostgreSQL breaks the
		// cycle by aborting one with 40P01, and the retry goes through.
		lock := func(ctx context.Context, tx bun.Tx, id int) error {
			_, err := tx.ExecContext(ctx, "UPDATE on_call SET on_duty = NOT on_duty WHERE id = ?", id)
			return err
		}
		results, attempts := collide(t, db, nil,
			func(ctx context.Context, who int, tx bun.Tx) error { return lock(ctx, tx, who+1) },
			func(ctx context.Context, who int, tx bun.Tx) error { return lock(ctx, tx, 2-who) })
		if results[0] != nil || results[1] != nil {
			t.Fatalf("a transaction failed despite the retries: %v / %v", results[0], results[1])
		}
		if attempts < 3 {
			t.Fatalf("%d attempts: the transactions did not deadlock", attempts)
		}
		// Each committed transaction flipped both rows once.
		var n int
		if err := db.NewRaw("SELECT count(*) FROM on_call WHERE on_duty").Scan(ctx, &n); err != nil || n != 0 {
			t.Fatalf("%d rows on duty (%v), want 0 after two double flips", n, err)
		}
	})
}

func TestRunInTxRetriesOnlyTheOutermostTransaction(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	conflict := &pgconn.PgError{Code: pgerrcode.SerializationFailure}
	tests := []struct {
		name   string
		err    error
		nested bool
		want   int
	}{
		{name: "serialization failure on the pool", err: conflict, want: database.TxAttempts},
		{name: "deadlock on the pool", err: &pgconn.PgError{Code: pgerrcode.DeadlockDetected}, want: database.TxAttempts},
		{name: "other error on the pool", err: &pgconn.PgError{Code: pgerrcode.UniqueViolation}, want: 1},
		{name: "serialization failure in a savepoint", err: conflict, nested: true, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := 0
			fn := func(ctx context.Context, tx bun.Tx) error { runs++; return tt.err }
			var err error
			if tt.nested {
				err = db.RunInTx(ctx, nil, func(ctx context.Context, outer bun.Tx) error {
					return database.RunInTx(ctx, outer, fn)
				})
			} else {
				err = database.RunInTx(ctx, db, fn)
			}
			if !errors.Is(err, tt.err) || runs != tt.want {
				t.Fatalf("ran %d times (want %d), error %v", runs, tt.want, err)
			}
		})
	}
}

// TestWaitBefore: a wait that ends in time is kept, one that would end
// after by is cut to leave LastTry for the last try, and none is left when
// not even that remains.
func TestWaitBefore(t *testing.T) {
	for _, tc := range []struct {
		name     string
		wait     time.Duration
		left     time.Duration // until by
		atMost   time.Duration
		atLeast  time.Duration
		noneLeft bool
	}{
		{"a wait that fits is kept", time.Second, time.Hour, time.Second, time.Second, false},
		{"a wait past by is cut to end LastTry before it", time.Hour, 3 * time.Second, 3*time.Second - database.LastTry, time.Second, false},
		{"less than LastTry left: no wait, no try", time.Second, database.LastTry / 2, 0, 0, true},
		{"by already past", time.Second, -time.Second, 0, 0, true},
	} {
		got := database.WaitBefore(tc.wait, time.Now().Add(tc.left))
		if tc.noneLeft {
			if got > 0 {
				t.Errorf("%s: %v, want 0 or less", tc.name, got)
			}
			continue
		}
		if got > tc.atMost || got < tc.atLeast {
			t.Errorf("%s: %v, want between %v and %v", tc.name, got, tc.atLeast, tc.atMost)
		}
	}
}
