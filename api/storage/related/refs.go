package related

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// Tables that input fields may reference.
const (
	TableEvents    = "events"
	TableClients   = "clients"
	TableEquipment = "equipment"
	TableQuotes    = "quotes"
	TablePickLists = "pick_lists"
)

// Ref is an input field that names a record of a table.
type Ref struct {
	Field string
	Table string
	// ID is the referenced id; nil (no reference) always passes.
	ID *uuid.UUID
}

// IssueNotInOrg is the issue text of a reference to a record that does not
// exist in the caller's organization (absent and foreign look the same).
const IssueNotInOrg = "does not name a record of your organization"

// Check verifies every reference against org and returns one
// validation_error naming each field whose record is not in org.
func Check(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, refs ...Ref) error {
	var issues []errs.FieldIssue
	for _, r := range refs {
		if r.ID == nil {
			continue
		}
		ok, err := storage.Exists(ctx, db, r.Table, org, *r.ID)
		if err != nil {
			return err
		}
		if !ok {
			issues = append(issues, errs.FieldIssue{Field: r.Field, Issue: IssueNotInOrg})
		}
	}
	if len(issues) > 0 {
		return errs.Invalid(issues...)
	}
	return nil
}
