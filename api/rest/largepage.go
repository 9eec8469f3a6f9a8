package rest

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/storage"
)

// LargePageBytes is the size as read (storage.Page.Bytes) past which a list
// page is a large read, encoded under Env.LargeReads (ListPage). A list
// page holds up to MaxLimit records of up to some 20,000 characters of
// free text each (a quote's notes and internal notes), and its answer
// renders a byte of text as up to six ('<' is written \u003c): a page of
// 100 such quotes is 12 MB, and 47 MB of a pod's memory, and sixteen at
// once pass a 256 MiB limit (docs/architecture.md, "Memory").
// Under this bound a page renders at most about 0.9 MB (six times its text
// and the records' fixed part), of the order of the smallest answers built
// under the bound already (a quote's detail of 500 lines, a 1000-item pick
// list: about 0.5 MB); an ordinary page reads far less (100 clients with every
// field filled read 17 KB, a 35 KB answer) and never waits for a slot.
const LargePageBytes = 128 << 10

// ListPage writes page's items as Page does. A page whose size as read is
// over LargePageBytes is encoded under env.LargeReads, as the other large
// reads are: it waits for a slot, and answers 503 if none comes in time.
// The body is the same either way. A handler whose page inlines
// expansions adds their size first (storage.ExpandedBytes). Call it
// outside LargeReads.Run: a build under Run holds a slot, and a second
// one would wait for another.
func ListPage[T any](c *fiber.Ctx, env *Env, page storage.Page[T], next *string) error {
	if page.Bytes <= LargePageBytes {
		return Page(c, page.Items, next)
	}
	return env.LargeReads.Run(c.UserContext(), func() error { return Page(c, page.Items, next) })
}
