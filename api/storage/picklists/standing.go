package picklists

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// StandingForQuote returns the id of the pick list of quote when it is not
// archived and was made before the current transaction, or nil: the list
// a warehouse still works from, which a write of the quote in this
// transaction did not make (an approval in it makes the list from the
// lines it approves). created_at is the insert's clock_timestamp(), at or
// after the transaction's start for a list made in it.
func StandingForQuote(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, quote uuid.UUID) (*uuid.UUID, error) {
	var ids []uuid.UUID
	err := db.NewSelect().Table("pick_lists").Column("id").
		Where("organization_id = ?", org).Where("quote_id = ?", quote).Where("NOT archived").
		Where("created_at < transaction_timestamp()").
		Limit(1).Scan(ctx, &ids)
	if err != nil || len(ids) == 0 {
		return nil, database.Error(err)
	}
	return &ids[0], nil
}
