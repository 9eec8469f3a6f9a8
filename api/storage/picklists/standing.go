package picklists

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// StandingForQuote returns the id of the pick list of quote when it is not
// archived, or nil: the list a warehouse still works from.
func StandingForQuote(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, quote uuid.UUID) (*uuid.UUID, error) {
	var ids []uuid.UUID
	err := db.NewSelect().Table("pick_lists").Column("id").
		Where("organization_id = ?", org).Where("quote_id = ?", quote).Where("NOT archived").
		Limit(1).Scan(ctx, &ids)
	if err != nil || len(ids) == 0 {
		return nil, database.Error(err)
	}
	return &ids[0], nil
}
