package database

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgerrcode"
	"github.com/uptrace/bun"
)

// ownedSequencesSQL lists the schema's sequences that number a column, an
// identity column (changes.seq) or a serial one (the migrations table's
// id), as pg_get_serial_sequence finds them, with the table and column
// quoted by PostgreSQL (format's %I, quote_ident) for the statements
// sequenceOf builds. Only columns that lead a valid b-tree index without a
// predicate (a primary key, a unique key) are listed, so that max() of
// each is one step down the index, never a scan of a large table; a
// descending sequence (none of ours) is left out. Partitions are left out
// too: their parent's column is the one listed.
const ownedSequencesSQL = `/* the schema's owned sequences */
SELECT q.tbl AS "table", q.col AS "column", q.seq AS "sequence", q.display AS "display"
FROM (
    SELECT format('%I.%I', n.nspname, c.relname) AS tbl, quote_ident(a.attname) AS col,
        pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname) AS seq,
        c.relname || '.' || a.attname AS display, c.oid AS rel, a.attnum
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      AND (a.attidentity <> '' OR a.atthasdef)
) q
JOIN pg_sequence s ON s.seqrelid = to_regclass(q.seq)
WHERE q.seq IS NOT NULL AND s.seqincrement > 0
  AND EXISTS (SELECT 1 FROM pg_index i
      JOIN pg_class ic ON ic.oid = i.indexrelid
      JOIN pg_am am ON am.oid = ic.relam
      WHERE i.indrelid = q.rel AND i.indkey[0] = q.attnum AND i.indisvalid AND i.indpred IS NULL AND am.amname = 'btree')
ORDER BY q.display`

// ownedSequence is a row of ownedSequencesSQL with what sequenceOf reads:
// the column's greatest value and the sequence's state.
type ownedSequence struct {
	Table    string        `bun:"table"`
	Column   string        `bun:"column"`
	Sequence string        `bun:"sequence"`
	Display  string        `bun:"display"`
	Max      sql.NullInt64 `bun:"-"`
	Last     int64         `bun:"-"`
	Called   bool          `bun:"-"`
}

// behind is whether the sequence's next value is at most the column's
// greatest: the next insert that takes it would collide (or, below a
// purged range, take a value out of order).
func (s ownedSequence) behind() bool {
	if !s.Max.Valid {
		return false
	}
	if s.Called {
		return s.Last < s.Max.Int64
	}
	return s.Last <= s.Max.Int64
}

// next is the value the sequence hands out next (its increment is 1 in
// this schema; a message needs no more).
func (s ownedSequence) next() int64 {
	if s.Called {
		return s.Last + 1
	}
	return s.Last
}

// ownedSequences lists the schema's owned sequences (ownedSequencesSQL),
// without their state.
func ownedSequences(ctx context.Context, db bun.IDB) ([]ownedSequence, error) {
	var seqs []ownedSequence
	if err := db.NewRaw(ownedSequencesSQL).Scan(ctx, &seqs); err != nil {
		return nil, fmt.Errorf("list the schema's sequences: %w", err)
	}
	return seqs, nil
}

// sequenceOf reads s's column's greatest value and the sequence's state.
// The names are the catalog's, quoted by PostgreSQL, never text from
// elsewhere. A role that may not read the sequence or the table (a
// service role granted only USAGE on sequences) cannot judge it: s comes
// back without a greatest value, so it is not behind, as currentCluster
// leaves an unreadable identifier unknown; the migrating role, which owns
// the schema, reads it. It runs outside a transaction, which the refusal
// would abort.
func sequenceOf(ctx context.Context, db bun.IDB, s ownedSequence) (ownedSequence, error) {
	q := fmt.Sprintf("SELECT (SELECT max(%s) FROM %s)::bigint, last_value, is_called FROM %s", s.Column, s.Table, s.Sequence)
	err := db.NewRaw(q).Scan(ctx, &s.Max, &s.Last, &s.Called)
	if HasCode(err, pgerrcode.InsufficientPrivilege) {
		s.Max = sql.NullInt64{}
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read the sequence %s: %w", s.Sequence, err)
	}
	return s, nil
}

// sequencesBehind is every owned sequence of the schema whose next value
// is at most its column's greatest. One read per sequence, no lock.
func sequencesBehind(ctx context.Context, db bun.IDB) ([]ownedSequence, error) {
	seqs, err := ownedSequences(ctx, db)
	if err != nil {
		return nil, err
	}
	var behind []ownedSequence
	for _, s := range seqs {
		s, err := sequenceOf(ctx, db, s)
		if err != nil {
			return nil, err
		}
		if s.behind() {
			behind = append(behind, s)
		}
	}
	return behind, nil
}

// describeSequenceBehind is serve's refusal of a sequence behind.
func describeSequenceBehind(s ownedSequence) string {
	return fmt.Sprintf("the sequence %s is behind its column %s (next value %d, greatest value %d: logical replication does not copy sequences), "+
		"so the writes that take it would fail as duplicates; migrate up advances it", s.Sequence, s.Display, s.next(), s.Max.Int64)
}

// advanceSequences moves every owned sequence of the schema that is behind
// its column (sequencesBehind) to the column's greatest value, so that the
// next insert takes the value after it, and says so through Notify. A
// database moved by logical replication gets its rows but not its
// sequences: changes.seq would start again at 1, and every write that
// records a change would fail as a duplicate (docs/changes.md, "A moved
// database"). Up runs it under the migration lock, before the
// migrations, whose records take the migrations table's sequence.
//
// A sequence is never moved back. The first read takes no lock; before
// moving one, it locks its table against writes (SHARE), so an insert that
// took a value from the old state commits first and is counted, and one
// that comes after takes a value above the new state.
func (m *Migrator) advanceSequences(ctx context.Context) error {
	behind, err := sequencesBehind(ctx, m.db)
	if err != nil {
		return err
	}
	for _, s := range behind {
		err := m.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if err := liftTimeouts(ctx, tx); err != nil {
				return err
			}
			// s.Table is the catalog's name, quoted by PostgreSQL.
			if _, err := tx.ExecContext(ctx, "LOCK TABLE "+s.Table+" IN SHARE MODE"); err != nil {
				return fmt.Errorf("lock %s: %w", s.Display, err)
			}
			s, err := sequenceOf(ctx, tx, s)
			if err != nil || !s.behind() {
				return err
			}
			m.notify(fmt.Sprintf("the sequence %s would hand out %d, at or below the greatest %s (%d): "+
				"the database was moved by logical replication, which does not copy sequences; advancing it so that new rows take %d on "+
				"(docs/changes.md, \"A moved database\")", s.Sequence, s.next(), s.Display, s.Max.Int64, s.Max.Int64+1))
			if _, err := tx.NewRaw("SELECT setval(?::regclass, ?, true)", s.Sequence, s.Max.Int64).Exec(ctx); err != nil {
				return fmt.Errorf("advance the sequence %s: %w", s.Sequence, err)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
