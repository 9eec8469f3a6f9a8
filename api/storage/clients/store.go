package clients

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/tenancy"
)

// Get loads one client of org.
func Get(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) (*Client, error) {
	return storage.Get[Client](ctx, db, org, id, Kind)
}

// ListFilter narrows the client list.
type ListFilter struct {
	// Search matches name or email, case-insensitively (trigram index).
	Search string
}

// List returns one page of org's clients.
func List(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest, f ListFilter) (storage.Page[Client], error) {
	var filters []storage.Cond
	if s := strings.TrimSpace(f.Search); s != "" {
		filters = append(filters, searchCond(s))
	}
	return storage.List[Client](ctx, db, org, p, filters...)
}

// SearchScope is the value of the search that a list cursor is bound to:
// the term lower-cased, so that a cursor goes on with the same term in
// another case (docs/decisions.md: a cursor is bound to the values of the
// filters). The match itself lowers the term in PostgreSQL (searchCond).
func SearchScope(s string) string { return strings.ToLower(s) }

// searchCond matches clients whose name or email contains s, ignoring
// case. The first test is the trigram index's expression, which finds the
// candidates and whose statistics (ANALYZE keeps them for an index
// expression) tell the planner how common s is: a common term is found by
// walking the organization's page index, a rare one through the trigram
// index. The second keeps the candidates that match within the name or
// within the email, not across the space between them. It is strpos, not
// a second LIKE, for the planner's sake: it estimates a LIKE on an
// expression without statistics as rare, which made a common term look
// rare, and a search for one client in eight at 100,000 clients then
// fetched all 12,500 through the trigram index and sorted them (105 ms,
// where the walk takes 0.3; bench/HISTORY.md).
//
// The term is lowered by PostgreSQL's lower(), as the columns are: Go's
// lowering agrees with it under C.UTF-8, not under every locale a server
// may have (under LC_CTYPE=C lower() changes ASCII letters only, and a
// client named "CAFÉ" was not found by its own name). lower() is immutable,
// so the planner folds it on the term and still sees the value.
func searchCond(s string) storage.Cond {
	return storage.WherePlanned("lower(?TableAlias.name || ' ' || coalesce(?TableAlias.email, '')) LIKE lower(?) "+
		"AND (strpos(lower(?TableAlias.name), lower(?)) > 0 OR strpos(lower(coalesce(?TableAlias.email, '')), lower(?)) > 0)",
		"%"+escapeLike(s)+"%", s, s)
}

// Create inserts a client into org from decoded fields.
func Create(ctx context.Context, db bun.IDB, t tenancy.Tenant, ch storage.Changes) (*Client, error) {
	return storage.Create[Client](ctx, db, t, ch)
}

// Update applies ch to the client id of org.
func Update(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, ch storage.Changes) (*Client, error) {
	return storage.Update[Client](ctx, db, org, id, Kind, ch)
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
