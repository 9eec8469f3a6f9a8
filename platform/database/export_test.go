package database

import (
	"io/fs"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// NewMigratorWith is NewMigrator over the embedded migrations and those of
// extra (for example a newer release's, with a later name), or over extra
// alone when embedded is false.
func NewMigratorWith(db *bun.DB, extra fs.FS, embedded bool) (*Migrator, error) {
	ms := migrate.NewMigrations()
	if embedded {
		if err := ms.Discover(migrationFiles); err != nil {
			return nil, err
		}
	}
	if err := ms.Discover(extra); err != nil {
		return nil, err
	}
	return newMigrator(db, ms), nil
}

// DatabaseExists exposes databaseExists to the table test.
var DatabaseExists = databaseExists

// PgxConfig and ReadBuffer expose pgx's configuration to the read-size test.
var PgxConfig = pgxConfig

const ReadBuffer = readBuffer
