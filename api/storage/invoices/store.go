package invoices

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/tenancy"
)

// kind describes invoices to the shared document store.
var kind = documents.Kind{Name: Kind, Lines: documents.InvoiceLines, Numbers: documents.InvoiceNumbers}

// Get loads one invoice of org with its line items.
func Get(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) (*Invoice, error) {
	return documents.Get[Invoice](ctx, db, org, id, kind)
}

// ListFilter narrows the invoice list.
type ListFilter struct{ Status string }

// List returns one page of org's invoices (without line items).
func List(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest, f ListFilter) (storage.Page[Invoice], error) {
	var filters []storage.Cond
	if f.Status != "" {
		filters = append(filters, storage.Where("?TableAlias.status = ?", f.Status))
	}
	return storage.List[Invoice](ctx, db, org, p, filters...)
}

// Create inserts an invoice into org, numbered INV-000001.. unless the body
// supplies a number.
func Create(ctx context.Context, db bun.IDB, t tenancy.Tenant, w documents.Write) (*Invoice, error) {
	return documents.Create[Invoice](ctx, db, t, kind, w, nil)
}

// Update applies w to the invoice id of org.
func Update(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, w documents.Write) (*Invoice, error) {
	return documents.Update[Invoice](ctx, db, org, id, kind, w, nil)
}
