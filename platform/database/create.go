package database

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

var safeName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// CreateIfMissing creates the database named in dbURL when it does not exist,
// connecting to the server's "postgres" database to do so. It reports whether
// it created one.
func CreateIfMissing(ctx context.Context, dbURL string) (bool, error) {
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
	db, err := Open(ctx, admin.String(), Options{MaxOpenConns: 1})
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
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		if strings.Contains(err.Error(), "already exists") {
			return false, nil
		}
		return false, fmt.Errorf("create database %s: %w", name, err)
	}
	return true, nil
}
