package database

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
)

var safeName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// CreateIfMissing creates the database named in dbURL when it does not exist,
// connecting to the server's "postgres" database to do so. It reports whether
// it created one. The name is created exactly as the URL spells it (quoted,
// so a mixed-case name keeps its case, as the connection that follows will
// ask for it). Several processes may run it at once: those that lose the
// race find the database made by the winner and report false. pooler is
// the URL's Options.Pooler: behind a transaction pooler the connection must
// not send the settings such a pooler refuses at startup.
func CreateIfMissing(ctx context.Context, dbURL, pooler string) (bool, error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return false, fmt.Errorf("parse database URL: %w", err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	if !safeName.MatchString(name) {
		return false, fmt.Errorf("database name %q must be a plain identifier to be created automatically", name)
	}
	admin := *u
	admin.Path = "/postgres"
	db, err := Open(ctx, admin.String(), Options{MaxOpenConns: 1, Pooler: pooler})
	if err != nil {
		return false, err
	}
	defer db.Close()
	var exists bool
	if err := db.NewRaw("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = ?)", name).Scan(ctx, &exists); err != nil {
		return false, err
	}
	if exists {
		return false, nil
	}
	if _, err := db.NewRaw("CREATE DATABASE ?", bun.Ident(name)).Exec(ctx); err != nil {
		if databaseExists(err) {
			return false, nil
		}
		return false, fmt.Errorf("create database %s: %w", name, err)
	}
	return true, nil
}

// databaseExists reports whether err is PostgreSQL's answer to a CREATE
// DATABASE of a name that exists, told by SQLSTATE: duplicate_database
// (42P04) when the database was there before the statement began, and
// unique_violation (23505) on the pg_database catalog when another CREATE
// DATABASE of the same name committed while this one ran.
func databaseExists(err error) bool {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return false
	}
	return pg.Code == pgerrcode.DuplicateDatabase ||
		(pg.Code == pgerrcode.UniqueViolation && pg.TableName == "pg_database")
}
