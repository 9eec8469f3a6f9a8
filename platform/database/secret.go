package database

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/uptrace/bun"
)

// Secret returns the named service secret, creating it with size random
// bytes on first use. Every instance reads the same value, so no key has to
// be distributed through configuration.
func Secret(ctx context.Context, db bun.IDB, name string, size int) ([]byte, error) {
	v := make([]byte, size)
	if _, err := rand.Read(v); err != nil {
		return nil, err
	}
	if _, err := db.NewRaw("INSERT INTO service_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", name, v).Exec(ctx); err != nil {
		return nil, fmt.Errorf("store secret %s: %w", name, err)
	}
	var out []byte
	if err := db.NewRaw("SELECT value FROM service_secrets WHERE name = ?", name).Scan(ctx, &out); err != nil {
		return nil, fmt.Errorf("read secret %s: %w", name, err)
	}
	return out, nil
}
