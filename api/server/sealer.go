package server

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/seal"
)

// ResponseSealer reads (or makes, on first start) the key that seals the
// responses Idempotency-Key records keep (docs/decisions.md,
// "Idempotency"). Like the cursor key it is a service secret in the
// database, so every pod seals and opens with the same key.
func ResponseSealer(ctx context.Context, db bun.IDB) (*seal.Sealer, error) {
	key, err := database.Secret(ctx, db, "response_seal_key", seal.KeySize)
	if err != nil {
		return nil, err
	}
	return seal.New(key)
}
