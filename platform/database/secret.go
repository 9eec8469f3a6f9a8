package database

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"

	"github.com/uptrace/bun"
)

// Secret returns the named service secret, creating it with size random
// bytes on first use. Every instance reads the same value, so no key has to
// be distributed through configuration.
//
// It reads first and writes only a secret that is missing: a process that
// restarts against a database refusing writes (a hot standby, a database
// made read-only, SQLSTATE 25006) finds its secrets made on an earlier start
// and serves reads, where an INSERT … ON CONFLICT DO NOTHING is refused
// before it finds the conflict.
func Secret(ctx context.Context, db bun.IDB, name string, size int) ([]byte, error) {
	if v, err := readSecret(ctx, db, name); err == nil || !errors.Is(err, sql.ErrNoRows) {
		return v, err
	}
	v := make([]byte, size)
	if _, err := rand.Read(v); err != nil {
		return nil, err
	}
	// Another instance may make it between the read and this insert: the
	// first value stored wins, and every instance reads that one.
	if _, err := db.NewRaw("INSERT INTO service_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", name, v).Exec(ctx); err != nil {
		return nil, fmt.Errorf("store secret %s: %w", name, err)
	}
	return readSecret(ctx, db, name)
}

func readSecret(ctx context.Context, db bun.IDB, name string) ([]byte, error) {
	var out []byte
	if err := db.NewRaw("SELECT value FROM service_secrets WHERE name = ?", name).Scan(ctx, &out); err != nil {
		return nil, fmt.Errorf("read secret %s: %w", name, err)
	}
	return out, nil
}
