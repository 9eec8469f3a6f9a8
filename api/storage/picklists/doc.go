// Package picklists stores warehouse pick lists and their items: the status flow of a
// list (draft → in_progress → packed/complete), the forward-only stage of an
// item, expansion of items, equipment and categories without N+1 queries,
// and the pick list an approved quote generates. The HTTP side is
// api/picklists.
package picklists
