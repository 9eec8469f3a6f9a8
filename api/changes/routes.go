// Package changes serves the change feed, GET /api/v2/changes: every
// committed change of the organization's records, oldest first, behind a
// cursor that a reader follows to see each change exactly once
// (docs/changes.md). A key sees the changes of the object types it may read.
package changes

import (
	"context"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/clients"
	"github.com/eventapi/eventapi/api/crew"
	"github.com/eventapi/eventapi/api/equipment"
	"github.com/eventapi/eventapi/api/events"
	"github.com/eventapi/eventapi/api/invoices"
	"github.com/eventapi/eventapi/api/picklists"
	"github.com/eventapi/eventapi/api/quotes"
	"github.com/eventapi/eventapi/api/reservations"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	feed "github.com/eventapi/eventapi/api/storage/changes"
	"github.com/eventapi/eventapi/api/vehicles"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// readScopes maps each object type to the scopes that read it: the scopes
// of the resource's own GET routes.
var readScopes = map[string][]tenancy.Scope{
	feed.Event:                events.ReadScopes,
	feed.Client:               clients.ReadScopes,
	feed.CrewMember:           crew.ReadScopes,
	feed.Equipment:            equipment.ReadScopes,
	feed.EquipmentCategory:    equipment.ReadScopes,
	feed.Vehicle:              vehicles.ReadScopes,
	feed.EquipmentReservation: reservations.ReadScopes,
	feed.Quote:                quotes.ReadScopes,
	feed.Invoice:              invoices.ReadScopes,
	feed.PickList:             picklists.ReadScopes,
	feed.PickListItem:         picklists.ReadScopes,
}

// anyRead is every scope that reads some object type of the feed, each
// once, in the feed's order of object types (the 403 lists them).
func anyRead() []tenancy.Scope {
	var out []tenancy.Scope
	for _, o := range feed.ObjectTypes {
		for _, s := range readScopes[o] {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// Routes registers the feed on r (the authenticated /api/v2 group).
func Routes(r fiber.Router, env *rest.Env) {
	// The feed refuses ?expand itself, so that one 422 names it beside the
	// other bad parameters (rest.Query).
	r.Get("/changes", auth.Require(anyRead()...), list(env))
}

// visible returns the object types whose read scope the key holds.
func visible(scopes tenancy.ScopeSet) []string {
	var out []string
	for _, o := range feed.ObjectTypes {
		if scopes.HasAny(readScopes[o]...) {
			out = append(out, o)
		}
	}
	return out
}

func list(env *rest.Env) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx := c.UserContext()
		org := tenancy.OrgID(ctx)
		p, _ := tenancy.FromContext(ctx)
		q := rest.NewQuery(c)
		types, err := parseTypes(c)
		q.Check(err)
		// A type the key may not read is a 403, answered only when no
		// parameter is bad.
		q.Check(checkTypes(ctx, types))
		q.Expansions()
		fromNow := parseFrom(c, q)
		page := parsePage(q, env, org, types)
		if err := q.Err(); err != nil {
			return err
		}
		if fromNow {
			return head(c, env, page)
		}
		// A page is a large read: up to feed.MaxPageBytes of records, held
		// as stored, as rendered and as the body at once.
		return env.LargeReads.Run(ctx, func() error {
			db := env.Conn(ctx)
			res, err := feed.List(ctx, db, org, page, feed.Filter{ObjectTypes: visible(p.Scopes), Types: types})
			if err != nil {
				return err
			}
			if err := feed.Render(ctx, db, org, res.Items); err != nil {
				return err
			}
			// The cursor is always returned once the feed has been read
			// past a change, listed or not, so a reader at the end of the
			// feed polls from where it stopped.
			var next *string
			if res.Resume != nil {
				next = page.NextCursor(env.Cursors, true, *res.Resume)
			} else if raw := rest.QueryValue(c, "cursor"); raw != "" {
				next = &raw
			}
			return rest.PageOf(c, res.Items, rest.Pagination{NextCursor: next, HasMore: res.HasMore})
		})
	}
}

// FromNow is the one value of ?from=: start at the feed's head.
const FromNow = "now"

// parseFrom reads ?from= into q: true for from=now, which starts a reader
// at the head instead of the oldest change and cannot be given beside a
// cursor (a reader with a cursor is somewhere already).
func parseFrom(c *fiber.Ctx, q *rest.Query) bool {
	from := q.Enum("from", FromNow)
	if from != FromNow {
		return false
	}
	if _, given := q.Raw("cursor"); given {
		q.Issue("from", "starts a reader without a cursor at the feed's head: give from or cursor, not both")
		return false
	}
	return true
}

// head answers GET /changes?from=now: no changes, and the cursor of the
// feed's head (feed.Head), bound like every cursor of the feed to the
// organization and the type filter. Followed, it lists every change that
// commits after this answer, and those that committed since the oldest write
// transaction then running on the database server began (feed.Head).
func head(c *fiber.Ctx, env *rest.Env, page storage.PageRequest) error {
	ctx := c.UserContext()
	at, err := feed.Head(ctx, env.Conn(ctx), tenancy.OrgID(ctx))
	if err != nil {
		return err
	}
	return rest.PageOf(c, []feed.Change{}, rest.Pagination{NextCursor: page.NextCursor(env.Cursors, true, at)})
}

// noWildcard is the wildcard the type filter does not have: parseTypes
// takes change types only, so "*" is a 422 there, and an empty element
// never reaches CheckReadable.
const noWildcard = ""

// checkTypes refuses a type filter that names a change type whose object
// type the key may not read: 403 insufficient_scope naming the scopes of
// the first such object type, by the same rule as a webhook subscription
// (CheckReadable), so a mix of readable and unreadable types is refused
// whole. An answer of no changes would tell the reader there are never
// any (docs/changes.md, "Who sees what"). No filter (types nil) passes:
// the feed then lists the readable object types only.
func checkTypes(ctx context.Context, types []string) error {
	return CheckReadable(ctx, types, noWildcard)
}

// typeScope is the value of the type filter that a cursor is bound to: the
// set of types, sorted and each once, so that a cursor issued for
// type=a,b goes on with type=b,a or type=a,b,a (docs/decisions.md: a cursor
// is bound to the values of the filters, not their spelling).
func typeScope(types []string) string {
	set := slices.Clone(types)
	slices.Sort(set)
	return strings.Join(slices.Compact(set), ",")
}

// parsePage reads limit and cursor into q, the cursor bound to the set of
// types (typeScope). A cursor issued while the binding followed the
// spelling is bound to the list as given, in its order and with its
// repeats: it is still accepted with that same spelling, so that a reader
// polling with a stored cursor goes on (docs/changes.md, "Reading it"), and
// the cursor answered to it is bound to the set.
func parsePage(q *rest.Query, env *rest.Env, org tenancy.OrganizationID, types []string) storage.PageRequest {
	return q.PageFormerly(env.Cursors, feed.Scope(org, typeScope(types)), feed.Scope(org, strings.Join(types, ",")))
}

// MaxTypeLength is the longest ?type= of GET /changes, in characters (the
// parameter's maxLength in the OpenAPI document; a test compares them).
const MaxTypeLength = 2000

// parseTypes reads ?type=, a comma-separated list of change types.
func parseTypes(c *fiber.Ctx) ([]string, error) {
	raw, err := rest.QueryString(c, "type", MaxTypeLength)
	if err != nil || raw == "" {
		return nil, err // the issue names what is wrong: its length or a character
	}
	var out []string
	for _, t := range rest.ListElements(raw) {
		if !feed.ValidType(t) {
			return nil, errs.InvalidField("type", "must be a comma-separated list of change types such as event.created or quote.approved")
		}
		out = append(out, t)
	}
	return out, nil
}
