package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgerrcode"
	"github.com/uptrace/bun"
)

// feedCluster is the PostgreSQL cluster the change feed runs on and the
// one `migrate up` last recorded in feed_cluster (migration
// 20261202180000; docs/changes.md, "A moved database"). A cluster's system
// identifier is drawn by initdb: a physical replica and a failover keep
// it, a database copied to another cluster (dump and restore, logical
// replication, pg_upgrade) meets a different one.
type feedCluster struct {
	// table is whether feed_cluster exists (not on a schema rolled back
	// below its migration).
	table bool
	// current is the cluster's identifier; invalid when the role may not
	// read it.
	current sql.NullInt64
	// recorded is the identifier feed_cluster holds; invalid before the
	// first `migrate up` of the release that records it.
	recorded sql.NullInt64
}

// moved is whether the database has changed clusters since `migrate up`
// last recorded one. Without a record or without the current identifier it
// cannot tell, and says no: the transaction counter rule alone holds.
func (c feedCluster) moved() bool {
	return c.current.Valid && c.recorded.Valid && c.current.Int64 != c.recorded.Int64
}

// record is whether `migrate up` must write the current identifier: none
// is recorded yet, or another one is.
func (c feedCluster) record() bool {
	return c.table && c.current.Valid && (!c.recorded.Valid || c.moved())
}

// currentCluster reads the cluster's system identifier. It runs as a
// statement of its own, never in a transaction, which its failure would
// abort. pg_control_system() is executable by every role on a stock
// server, but a managed service may revoke it: then the identifier is
// unknown, nothing is recorded or compared, and the feed keeps the
// transaction counter rule alone (a stored position at or above the next
// one), which misses only a move to a cluster whose counter is already
// past the stored positions (docs/changes.md, "A moved database").
func currentCluster(ctx context.Context, db bun.IDB) (sql.NullInt64, error) {
	var id int64
	err := db.NewRaw("SELECT system_identifier FROM pg_control_system()").Scan(ctx, &id)
	if HasCode(err, pgerrcode.InsufficientPrivilege) {
		return sql.NullInt64{}, nil
	}
	if err != nil {
		return sql.NullInt64{}, fmt.Errorf("read the PostgreSQL cluster's system identifier: %w", err)
	}
	return sql.NullInt64{Int64: id, Valid: true}, nil
}

// readRecordedCluster fills c.recorded from feed_cluster when c.table; in
// a transaction it locks the row, which only migrators write.
func readRecordedCluster(ctx context.Context, db bun.IDB, c *feedCluster, forUpdate bool) error {
	c.recorded = sql.NullInt64{}
	if !c.table {
		return nil
	}
	q := "SELECT system_identifier FROM feed_cluster"
	if forUpdate {
		q += " FOR UPDATE"
	}
	var id int64
	err := db.NewRaw(q).Scan(ctx, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the change feed's recorded cluster: %w", err)
	}
	c.recorded = sql.NullInt64{Int64: id, Valid: true}
	return nil
}

// recordCluster writes c.current into feed_cluster.
func recordCluster(ctx context.Context, tx bun.Tx, c feedCluster) error {
	if _, err := tx.NewRaw(`INSERT INTO feed_cluster (system_identifier) VALUES (?)
		ON CONFLICT (only_row) DO UPDATE SET system_identifier = EXCLUDED.system_identifier, recorded_at = EXCLUDED.recorded_at`,
		c.current.Int64).Exec(ctx); err != nil {
		return fmt.Errorf("record the change feed's cluster: %w", err)
	}
	return nil
}

// describeMovedCluster is the warning of a database that changed clusters
// since `migrate up` last ran, which serve logs: it serves it, since a
// pg_upgrade (a managed service's major upgrade) changes the identifier
// too and leaves nothing to mend.
func describeMovedCluster(c feedCluster) string {
	return fmt.Sprintf("the database's PostgreSQL cluster changed since `eventapi migrate up` last ran (system identifier %d, recorded %d): "+
		"after a pg_upgrade nothing is wrong; after a dump and restore or a logical replication, a reader holding a cursor the old server "+
		"handed out after the copy was taken skips new changes until `eventapi migrate up` raises the change feed's position offset: "+
		"run it (docs/changes.md, \"A moved database\")", c.current.Int64, c.recorded.Int64)
}
