// Package etag makes the v2 reads revalidatable: a 200 answer to GET (or
// HEAD) gets an ETag computed from its body, and a request whose
// If-None-Match names it gets 304 Not Modified with no body instead
// (RFC 9110, 13.1.2). A load planner polling a truck's load or a pick list
// then downloads the answer only when it changed. The tag is weak
// (W/"…"): the same answer goes out plain or gzipped, and If-None-Match
// compares weakly anyway (docs/decisions.md, "Conditional reads").
package etag

import (
	"encoding/hex"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/eventapi/eventapi/api/middleware/compress"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// CacheControl goes with every tagged answer: a client may keep the answer
// but must revalidate it before each use, and a shared cache must not keep
// it at all (it is one organization's data).
const CacheControl = "private, no-cache"

// New returns the middleware. It must sit below the request log and the
// access log, so that they record the 304, and below compression, so that
// it hashes the plain body.
//
// A write that asks for a condition is refused with 412
// precondition_failed before it runs, when serves says a route of its
// method matches its path (an unknown path keeps its 404 or 405):
//   - an If-Match naming entity tags, in any of its header lines: If-Match
//     compares strongly (RFC 9110, 13.1.1) and the tags this API gives are
//     weak, so no tag a client holds can match;
//   - an If-Unmodified-Since without If-Match: no answer carries a
//     modification date to compare it with.
//
// Run as if the header were absent, the write would overwrite the change
// the client meant to guard against (docs/decisions.md, "Conditional
// reads"). "If-Match: *" (the record exists) is left to the handler, whose
// 404 answers a record that is not there, and, as RFC 9110 says, makes
// If-Unmodified-Since ignored.
func New(serves func(method, path string) bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		m := c.Method()
		if m != fiber.MethodGet && m != fiber.MethodHead {
			if rest.IsWrite(m) && serves(m, c.Path()) {
				if err := refusedCondition(&c.Request().Header); err != nil {
					return err
				}
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
		if Matches(c.Get(fiber.HeaderIfNoneMatch), tag) {
			return compress.NotModified(c, len(body), string(res.Header.ContentType()))
		}
		return nil
	}
}

// The refusals of a write that asks for a condition.
var (
	errIfMatch = errs.New(errs.PreconditionFailed,
		"If-Match compares entity tags strongly and this API's tags are weak (W/\"…\"), so none can match: nothing was written. Conditional writes are not offered; send the write without If-Match")
	errIfUnmodifiedSince = errs.New(errs.PreconditionFailed,
		"If-Unmodified-Since cannot be evaluated: no answer carries a modification date, so nothing was written. Conditional writes are not offered; send the write without If-Unmodified-Since")
)

// refusedCondition returns the refusal of a write with the request header
// h, or nil when it asks for no condition this API refuses.
func refusedCondition(h *fasthttp.RequestHeader) error {
	ifMatch := false
	for _, v := range h.PeekAll(fiber.HeaderIfMatch) {
		line := strings.TrimSpace(string(v))
		ifMatch = ifMatch || line != ""
		if namesTags(line) {
			return errIfMatch
		}
	}
	if ifMatch {
		return nil // "*": If-Unmodified-Since is then ignored (RFC 9110, 13.1.4)
	}
	for _, v := range h.PeekAll(fiber.HeaderIfUnmodifiedSince) {
		if strings.TrimSpace(string(v)) != "" {
			return errIfUnmodifiedSince
		}
	}
	return nil
}

// namesTags reports whether one If-Match field line names entity tags:
// anything but empty or "*" (a list such as `*, "x"` names one).
func namesTags(line string) bool {
	v := strings.TrimSpace(line)
	return v != "" && v != "*"
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
