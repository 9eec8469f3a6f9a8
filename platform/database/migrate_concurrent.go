package database

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// A concurrent migration builds or drops indexes without blocking the
// writes of their table (docs/helm.md, "Upgrades and migrations"). Its
// files are named .up.sql and .down.sql, without .tx., and hold only
// statements of two forms, one per --bun:split section:
//
//	CREATE [UNIQUE] INDEX CONCURRENTLY IF NOT EXISTS name ON …
//	DROP INDEX CONCURRENTLY IF EXISTS name
//
// Any other statement in such a file is refused when the migrations are
// discovered: DDL that cannot run concurrently belongs in a transaction,
// where a failure leaves nothing half done.
//
// The Migrator runs them itself (runConcurrent) and gives bun an empty
// body: each statement on one session of a direct connection, with the
// session's timeouts lifted and put back after, and an index a killed or
// failed build left invalid dropped and built again. Behind a transaction
// pooler a session setting would pass on to other clients, so there each
// statement runs without CONCURRENTLY in a transaction of its own, as a
// plain build that blocks the table's writes while it runs, and Notify
// says so.

// indexStatement is one statement of a concurrent migration.
type indexStatement struct {
	// SQL is the statement as written; Plain the same without
	// CONCURRENTLY, for a transaction.
	SQL, Plain string
	// Index is the index it builds or drops.
	Index string
	// Drop tells a DROP INDEX from a CREATE INDEX.
	Drop bool
}

// The two forms a concurrent migration may hold. An index name is a plain
// lower-case identifier, so that it can be looked up as written.
var (
	createConcurrently = regexp.MustCompile(`(?is)^CREATE\s+(UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+IF\s+NOT\s+EXISTS\s+([a-z_][a-z0-9_]*)\s+(ON\s.+)$`)
	dropConcurrently   = regexp.MustCompile(`(?is)^DROP\s+INDEX\s+CONCURRENTLY\s+IF\s+EXISTS\s+([a-z_][a-z0-9_]*)$`)
)

// parseConcurrent reads the statements of the concurrent migration file
// name from text, or says why text is not one.
func parseConcurrent(name, text string) ([]indexStatement, error) {
	var out []indexStatement
	for _, section := range strings.Split(text, "\n--bun:split") {
		var lines []string
		for _, line := range strings.Split(section, "\n") {
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "--") {
				lines = append(lines, line)
			}
		}
		stmt := strings.TrimSpace(strings.Join(lines, "\n"))
		if stmt == "" {
			continue
		}
		stmt = strings.TrimSpace(strings.TrimSuffix(stmt, ";"))
		if strings.Contains(stmt, ";") {
			return nil, fmt.Errorf("migration %s: one statement per --bun:split section: %q", name, stmt)
		}
		if m := createConcurrently.FindStringSubmatch(stmt); m != nil {
			out = append(out, indexStatement{SQL: stmt, Index: m[2],
				Plain: "CREATE " + m[1] + "INDEX IF NOT EXISTS " + m[2] + " " + m[3]})
			continue
		}
		if m := dropConcurrently.FindStringSubmatch(stmt); m != nil {
			out = append(out, indexStatement{SQL: stmt, Index: m[1], Drop: true, Plain: "DROP INDEX IF EXISTS " + m[1]})
			continue
		}
		return nil, fmt.Errorf("migration %s is not transactional (its files are not named .tx.up.sql and .tx.down.sql), "+
			"so it may only build indexes with CREATE [UNIQUE] INDEX CONCURRENTLY IF NOT EXISTS or drop them with "+
			"DROP INDEX CONCURRENTLY IF EXISTS: %q", name, stmt)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("migration %s is not transactional and holds no statement", name)
	}
	return out, nil
}

// concurrentFiles reads every concurrent migration file of fsys, keyed by
// its base name, and returns fsys as bun should see it: those files empty,
// since the Migrator runs their statements itself.
func concurrentFiles(fsys fs.FS) (map[string][]indexStatement, fs.FS, error) {
	plan := map[string][]indexStatement{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isConcurrentFile(p) {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		stmts, err := parseConcurrent(path.Base(p), string(b))
		if err != nil {
			return err
		}
		plan[path.Base(p)] = stmts
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return plan, emptied{fsys, plan}, nil
}

// isConcurrentFile reports whether p names a migration file that runs
// outside a transaction.
func isConcurrentFile(p string) bool {
	return (strings.HasSuffix(p, ".up.sql") && !strings.HasSuffix(p, ".tx.up.sql")) ||
		(strings.HasSuffix(p, ".down.sql") && !strings.HasSuffix(p, ".tx.down.sql"))
}

// emptied is an fs.FS whose files named in plan read as empty.
type emptied struct {
	fs.FS
	plan map[string][]indexStatement
}

func (e emptied) Open(name string) (fs.File, error) {
	f, err := e.FS.Open(name)
	if err != nil || e.plan[path.Base(name)] == nil {
		return f, err
	}
	_ = f.Close()
	return emptyFile{name: path.Base(name)}, nil
}

// emptyFile is a file with no content; it is its own fs.FileInfo.
type emptyFile struct{ name string }

func (f emptyFile) Stat() (fs.FileInfo, error) { return f, nil }
func (emptyFile) Read([]byte) (int, error)     { return 0, io.EOF }
func (emptyFile) Close() error                 { return nil }
func (f emptyFile) Name() string               { return f.name }
func (emptyFile) Size() int64                  { return 0 }
func (emptyFile) Mode() fs.FileMode            { return 0o444 }
func (emptyFile) ModTime() time.Time           { return time.Time{} }
func (emptyFile) IsDir() bool                  { return false }
func (emptyFile) Sys() any                     { return nil }

// fileName is the base name of the file that runs mg in the direction it
// is about to run: down when it is applied (as recordInTransaction tells).
func fileName(mg *migrate.Migration) string {
	if mg.IsApplied() {
		return mg.Name + "_" + mg.Comment + ".down.sql"
	}
	return mg.Name + "_" + mg.Comment + ".up.sql"
}

// runConcurrent runs the statements of the concurrent migration mg on
// conn, a session of its own, or, behind a transaction pooler, each
// without CONCURRENTLY in a transaction.
func (m *Migrator) runConcurrent(ctx context.Context, conn bun.Conn, mg *migrate.Migration) error {
	stmts, ok := m.concurrent[fileName(mg)]
	if !ok {
		return fmt.Errorf("migration %s is not transactional: name its files .tx.up.sql and .tx.down.sql", mg)
	}
	if m.Pooler == PoolerTransaction {
		m.notify(fmt.Sprintf("migration %s: behind a transaction pooler its indexes are built without CONCURRENTLY, "+
			"blocking the writes of their tables while they build: give migrations a direct URL to avoid it", mg))
		for _, s := range stmts {
			if err := m.inTransaction(ctx, conn, s); err != nil {
				return fmt.Errorf("migration %s: %w", mg, err)
			}
		}
		return nil
	}
	if _, err := conn.ExecContext(ctx, setTimeoutsSQL, "0"); err != nil {
		return fmt.Errorf("lift the migration's timeouts: %w", err)
	}
	defer restoreTimeouts(conn)
	for _, s := range stmts {
		if err := m.dropIfInvalid(ctx, conn, s, "DROP INDEX CONCURRENTLY IF EXISTS "+s.Index); err != nil {
			return fmt.Errorf("migration %s: %w", mg, err)
		}
		if _, err := conn.ExecContext(ctx, s.SQL); err != nil {
			return fmt.Errorf("migration %s: %w", mg, err)
		}
	}
	return nil
}

// inTransaction runs s's plain form in a transaction with its timeouts
// lifted, after dropping an invalid index of its name.
func (m *Migrator) inTransaction(ctx context.Context, conn bun.Conn, s indexStatement) error {
	return conn.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := liftTimeouts(ctx, tx); err != nil {
			return err
		}
		if err := m.dropIfInvalid(ctx, tx, s, "DROP INDEX IF EXISTS "+s.Index); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.Plain)
		return err
	})
}

// dropIfInvalid drops, with the statement drop, the index s builds when it
// exists and is invalid: a concurrent build that failed or was killed
// leaves it so, and IF NOT EXISTS would keep it, unused by any query. An
// index being built is invalid too until its build ends: when another
// session builds it (the build of a migrator whose process died without
// cancelling it goes on in PostgreSQL), dropIfInvalid waits for that build
// first and then looks again, since dropping an index under its build
// ends in "deadlock detected".
func (m *Migrator) dropIfInvalid(ctx context.Context, db bun.IConn, s indexStatement, drop string) error {
	if s.Drop {
		return nil
	}
	if err := m.waitForOtherBuild(ctx, db, s.Index); err != nil {
		return err
	}
	var invalid bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_index
		WHERE indexrelid = to_regclass(?) AND NOT indisvalid)`, s.Index).Scan(&invalid); err != nil {
		return fmt.Errorf("check index %s: %w", s.Index, err)
	}
	if !invalid {
		return nil
	}
	m.notify(fmt.Sprintf("index %s is invalid (an earlier build failed or was stopped): dropping it to build it again", s.Index))
	if _, err := db.ExecContext(ctx, drop); err != nil {
		return fmt.Errorf("drop invalid index %s: %w", s.Index, err)
	}
	return nil
}

// waitForOtherBuild returns once no other session builds the index name,
// looking again as a migrator waiting for the lock tries it (pollWait), for
// as long as ctx allows; it says once that it waits.
func (m *Migrator) waitForOtherBuild(ctx context.Context, db bun.IConn, name string) error {
	for try := 1; ; try++ {
		var building bool
		if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_progress_create_index
			WHERE index_relid = to_regclass(?) AND pid <> pg_backend_pid())`, name).Scan(&building); err != nil {
			return fmt.Errorf("check index %s: %w", name, err)
		}
		if !building {
			return nil
		}
		if try == 1 {
			m.notify(fmt.Sprintf("index %s is being built by another session (a migrator that stopped without ending its build): waiting for that build to end", name))
		}
		if err := pollWait(ctx, try); err != nil {
			return fmt.Errorf("wait for the build of index %s: %w", name, err)
		}
	}
}

// setTimeoutsSQL sets, for the session, every timeout liftTimeoutsSQL
// lifts to its argument (for the session, since a concurrent build cannot
// run in a transaction).
const setTimeoutsSQL = `SELECT set_config(name, ?, false) ` + timeoutSettings

// restoreTimeouts puts back the session's timeouts (their values from the
// connection's start, its role and its database), or closes the
// connection when that fails, so that the pool never hands out a session
// without them.
func restoreTimeouts(conn bun.Conn) {
	_, err := conn.ExecContext(context.Background(), `SELECT set_config(name, reset_val, false) `+timeoutSettings)
	if err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}
