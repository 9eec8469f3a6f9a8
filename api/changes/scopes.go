package changes

import (
	"context"
	"strings"

	feed "github.com/eventapi/eventapi/api/storage/changes"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// CheckReadable returns nil when the principal of ctx may read every object
// type the change types name (wildcard: every object type), else the 403 of
// the first it may not read (auth.Check). A webhook subscription is checked with
// it: an endpoint receives each change's whole record, so subscribing must
// not reach what the key's reads cannot (docs/webhooks.md, "Scopes"). The
// feed's type filter is checked with it too (checkTypes).
func CheckReadable(ctx context.Context, changeTypes []string, wildcard string) error {
	for _, o := range objectTypes(changeTypes, wildcard) {
		if err := auth.Check(ctx, readScopes[o]...); err != nil {
			return err
		}
	}
	return nil
}

// objectTypes returns the object types of changeTypes in the feed's order;
// wildcard stands for every one.
func objectTypes(changeTypes []string, wildcard string) []string {
	var out []string
	for _, o := range feed.ObjectTypes {
		for _, t := range changeTypes {
			if t == wildcard || strings.HasPrefix(t, o+".") {
				out = append(out, o)
				break
			}
		}
	}
	return out
}
