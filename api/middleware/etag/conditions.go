package etag

import (
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// RefuseConditions returns the middleware that refuses, with 412
// precondition_failed and before it runs, a write that asks for a
// condition, when serves says a route of its method matches its path (an
// unknown path keeps its 404 or 405):
//   - an If-Match naming entity tags, in any of its header lines: If-Match
//     compares strongly (RFC 9110, 13.1.1) and the tags this API gives are
//     weak, so no tag a client holds can match (v1 gives none at all);
//   - an If-Unmodified-Since without If-Match: no answer carries a
//     modification date to compare it with;
//   - an If-None-Match naming anything, in any of its header lines: "*" is
//     false for a target that exists and a tag list is compared with the
//     current answer's tag (RFC 9110, 13.1.2), which a write does not
//     compute.
//
// Run as if the header were absent, the write would overwrite the change
// the client meant to guard against (docs/decisions.md, "Conditional
// reads"). "If-Match: *" (the record exists) is left to the handler, whose
// 404 answers a record that is not there, and, as RFC 9110 says, makes
// If-Unmodified-Since ignored. v2 has it within New; v1, which tags no
// answer, mounts it alone.
func RefuseConditions(serves func(method, path string) bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := refusal(c, serves); err != nil {
			return err
		}
		return c.Next()
	}
}

// refusal is the refusal of c's request when it is a served write that
// asks for a condition, else nil.
func refusal(c *fiber.Ctx, serves func(method, path string) bool) error {
	if m := c.Method(); rest.IsWrite(m) && serves(m, c.Path()) {
		return refusedCondition(&c.Request().Header)
	}
	return nil
}

// The refusals of a write that asks for a condition.
var (
	errIfMatch = errs.New(errs.PreconditionFailed,
		"If-Match compares entity tags strongly and this API gives none that can match (v2's tags are weak, W/\"…\"; v1 gives none): nothing was written. Conditional writes are not offered; send the write without If-Match")
	errIfUnmodifiedSince = errs.New(errs.PreconditionFailed,
		"If-Unmodified-Since cannot be evaluated: no answer carries a modification date, so nothing was written. Conditional writes are not offered; send the write without If-Unmodified-Since")
	errIfNoneMatch = errs.New(errs.PreconditionFailed,
		"If-None-Match is evaluated on reads only: a write does not compare it with the record's current tag, so nothing was written. Conditional writes are not offered; send the write without If-None-Match")
)

// refusedCondition returns the refusal of a write with the request header
// h, or nil when it asks for no condition this API refuses.
func refusedCondition(h *fasthttp.RequestHeader) error {
	lines := h.PeekAll(fiber.HeaderIfMatch)
	star := false
	for _, v := range lines {
		line := strings.TrimSpace(string(v))
		if namesTags(line) {
			return errIfMatch
		}
		star = star || line == "*"
	}
	switch {
	case star:
		// "*": If-Unmodified-Since is then ignored (RFC 9110, 13.1.4).
	case len(lines) > 0:
		// Present but empty: a list of no tags, which no record matches,
		// as "If-Match: ," is (namesTags).
		return errIfMatch
	case anyGiven(h.PeekAll(fiber.HeaderIfUnmodifiedSince), " \t"):
		return errIfUnmodifiedSince
	}
	// If-None-Match comes after both (RFC 9110, 13.2.2). One that names
	// nothing (empty, or only commas) is a list of no tags, none of which
	// matches: the condition holds.
	if anyGiven(h.PeekAll(fiber.HeaderIfNoneMatch), ", \t") {
		return errIfNoneMatch
	}
	return nil
}

// anyGiven reports whether any of a header's lines holds more than the
// characters of blank (white space, and commas for a list).
func anyGiven(lines [][]byte, blank string) bool {
	for _, v := range lines {
		if strings.Trim(string(v), blank) != "" {
			return true
		}
	}
	return false
}

// namesTags reports whether one If-Match field line names entity tags:
// anything but empty or "*" (a list such as `*, "x"` names one).
func namesTags(line string) bool {
	v := strings.TrimSpace(line)
	return v != "" && v != "*"
}
