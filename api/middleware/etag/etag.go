// Package etag makes the v2 reads revalidatable: a 200 answer to GET (or
// HEAD) gets an ETag computed from its body, and a request whose
// If-None-Match names it gets 304 Not Modified with no body instead
// (RFC 9110, 13.1.2). A load planner polling a truck's load or a pick list
// then downloads the answer only when it changed. The tag is weak
// (W/"…"): the same answer goes out plain or gzipped, and If-None-Match
// compares weakly anyway (docs/decisions.md, "Conditional reads"). Since
// those tags are weak, a write that asks for a condition (If-Match,
// If-Unmodified-Since, If-None-Match) is refused rather than run, on v2 and
// v1 alike (conditions.go).
package etag

import (
	"encoding/hex"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/eventapi/eventapi/api/middleware/compress"
)

// CacheControl goes with every tagged answer: a client may keep the answer
// but must revalidate it before each use, and a shared cache must not keep
// it at all (it is one organization's data).
const CacheControl = "private, no-cache"

// New returns the middleware. It must sit below the request log and the
// access log, so that they record the 304, and below compression, so that
// it hashes the plain body. It refuses the writes that ask for a condition
// as RefuseConditions does.
func New(serves func(method, path string) bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		m := c.Method()
		if m != fiber.MethodGet && m != fiber.MethodHead {
			if err := refusal(c, serves); err != nil {
				return err
			}
			return c.Next()
		}
		if err := c.Next(); err != nil {
			return err
		}
		res := c.Response()
		if res.StatusCode() != fiber.StatusOK || len(res.Header.Peek(fiber.HeaderETag)) > 0 {
			return nil
		}
		body, ok := bodyOf(res)
		if !ok || len(body) == 0 {
			return nil
		}
		tag := Of(body)
		res.Header.Set(fiber.HeaderETag, tag)
		res.Header.Set(fiber.HeaderCacheControl, CacheControl)
		if NoneMatchNames(&c.Request().Header, tag) {
			return compress.NotModified(c, len(body), string(res.Header.ContentType()))
		}
		return nil
	}
}

// Of returns the weak entity tag of body: 64 bits of xxHash, in hex.
func Of(body []byte) string {
	var sum [8]byte
	h := xxhash.Sum64(body)
	for i := range sum {
		sum[i] = byte(h >> (56 - 8*i))
	}
	return `W/"` + hex.EncodeToString(sum[:]) + `"`
}

// NoneMatchNames reports whether the request's If-None-Match names tag
// (Matches) in any of its header lines: several lines are one list (RFC
// 9110, 5.3), so a tag on the second line counts as one on the first.
func NoneMatchNames(h *fasthttp.RequestHeader, tag string) bool {
	for _, v := range h.PeekAll(fiber.HeaderIfNoneMatch) {
		if Matches(string(v), tag) {
			return true
		}
	}
	return false
}

// Matches reports whether an If-None-Match field value names tag, by weak
// comparison (RFC 9110, 8.8.3.2): "*", or a listed tag whose opaque part
// equals tag's, W/ or not.
func Matches(ifNoneMatch, tag string) bool {
	want := opaque(tag)
	for _, t := range strings.Split(ifNoneMatch, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || opaque(t) == want {
			return true
		}
	}
	return false
}

// opaque drops a tag's weakness indicator.
func opaque(tag string) string { return strings.TrimPrefix(tag, "W/") }

// bodyOf returns the response body without consuming it: a body the
// handler streams from a buffer (rest's large answers) is read in place;
// any other stream is left alone (ok false).
func bodyOf(res *fasthttp.Response) (body []byte, ok bool) {
	if !res.IsBodyStream() {
		return res.Body(), true
	}
	if b, ok := res.BodyStream().(interface{ Bytes() []byte }); ok {
		return b.Bytes(), true
	}
	return nil, false
}
