package database

import (
	"io/fs"
	"maps"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// NewMigratorWith is NewMigrator over the embedded migrations and those of
// extra (for example a newer release's, with a later name), or over extra
// alone when embedded is false.
func NewMigratorWith(db *bun.DB, extra fs.FS, embedded bool) (*Migrator, error) {
	ms := migrate.NewMigrations()
	plan := map[string][]indexStatement{}
	if embedded {
		if _, p, err := discover(ms, migrationFiles); err != nil {
			return nil, err
		} else {
			maps.Copy(plan, p)
		}
	}
	_, p, err := discover(ms, extra)
	if err != nil {
		return nil, err
	}
	maps.Copy(plan, p)
	return newMigrator(db, ms, plan), nil
}

// ParseConcurrent exposes parseConcurrent's verdict and plain forms to its
// table test.
func ParseConcurrent(name, text string) (plain []string, err error) {
	stmts, err := parseConcurrent(name, text)
	for _, s := range stmts {
		plain = append(plain, s.Plain)
	}
	return plain, err
}

// DatabaseExists exposes databaseExists to the table test.
var DatabaseExists = databaseExists

// PgxConfig and ReadBuffer expose pgx's configuration to the read-size test.
var PgxConfig = pgxConfig

const ReadBuffer = readBuffer
