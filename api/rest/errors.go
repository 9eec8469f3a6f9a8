// Package rest is the HTTP plumbing shared by every resource: the one map
// from error code to status and the error envelopes (v2 and v1, errors.go),
// response envelopes and the JSON encoder that writes them (render.go,
// json.go; the plans it writes them by: api/rest/jsonplan), strict JSON
// input decoding with per-field validation (input*.go), the reading of
// page parameters, cursors (decoded by api/storage) and expand lists
// (page.go, listquery.go), the record of the query parameters a handler
// read, for the ignored_parameters warning (ignoredparams.go), deprecation
// headers, and the text, decimal and date-time rules of input. The slots
// of large reads and writes are api/rest/bulkhead's.
package rest

import (
	"errors"
	"log/slog"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// statusOf is the single map from error code to HTTP status, on both
// surfaces (v1 answers some codes as another: v1Equivalent).
var statusOf = map[errs.Code]int{
	errs.MalformedJSON:          fiber.StatusBadRequest,
	errs.BadRequest:             fiber.StatusBadRequest,
	errs.InvalidCredentials:     fiber.StatusUnauthorized,
	errs.InsufficientScope:      fiber.StatusForbidden,
	errs.NotFound:               fiber.StatusNotFound,
	errs.MethodNotAllowed:       fiber.StatusMethodNotAllowed,
	errs.DuplicateRecord:        fiber.StatusConflict,
	errs.IdempotencyKeyMismatch: fiber.StatusConflict,
	errs.IdempotencyKeyInUse:    fiber.StatusConflict,
	errs.PayloadTooLarge:        fiber.StatusRequestEntityTooLarge,
	errs.URITooLong:             fiber.StatusRequestURITooLong,
	errs.UnsupportedMediaType:   fiber.StatusUnsupportedMediaType,
	errs.HeadersTooLarge:        fiber.StatusRequestHeaderFieldsTooLarge,
	errs.RequestTimeout:         fiber.StatusRequestTimeout,
	errs.Validation:             fiber.StatusUnprocessableEntity,
	errs.InvalidTransition:      fiber.StatusUnprocessableEntity,
	errs.OverbookBlocked:        fiber.StatusUnprocessableEntity,
	errs.OverbookReasonRequired: fiber.StatusUnprocessableEntity,
	errs.CursorExpired:          fiber.StatusGone,
	errs.PreconditionFailed:     fiber.StatusPreconditionFailed,
	errs.RateLimited:            fiber.StatusTooManyRequests,
	errs.Internal:               fiber.StatusInternalServerError,
	errs.ServiceUnavailable:     fiber.StatusServiceUnavailable,
}

// v1CodeOf names each code on the v1 surface, whose envelope has only the
// upper-case codes docs/v1.md and v1.yaml list. It names a code only: the
// status is the one statusOf gives, through v1Equivalent. Every code has a
// name (TestEveryCodeHasAStatusAndAV1Name), so no error of a client becomes
// 500 SERVER_ERROR on v1; a client error v1 has no name of its own for is
// BAD_REQUEST with its own status.
var v1CodeOf = map[errs.Code]string{
	errs.MalformedJSON:          "BAD_REQUEST",
	errs.BadRequest:             "BAD_REQUEST",
	errs.Validation:             "BAD_REQUEST",
	errs.PayloadTooLarge:        "BAD_REQUEST",
	errs.URITooLong:             "BAD_REQUEST",
	errs.HeadersTooLarge:        "BAD_REQUEST",
	errs.RequestTimeout:         "BAD_REQUEST",
	errs.UnsupportedMediaType:   "BAD_REQUEST",
	errs.DuplicateRecord:        "BAD_REQUEST",
	errs.IdempotencyKeyMismatch: "BAD_REQUEST",
	errs.IdempotencyKeyInUse:    "BAD_REQUEST",
	errs.InvalidTransition:      "BAD_REQUEST",
	errs.OverbookBlocked:        "BAD_REQUEST",
	errs.OverbookReasonRequired: "BAD_REQUEST",
	errs.CursorExpired:          "BAD_REQUEST",
	errs.PreconditionFailed:     "BAD_REQUEST",
	errs.InvalidCredentials:     "UNAUTHORIZED",
	errs.InsufficientScope:      "FORBIDDEN",
	errs.NotFound:               "NOT_FOUND",
	errs.MethodNotAllowed:       "METHOD_NOT_ALLOWED",
	errs.RateLimited:            "RATE_LIMITED",
	errs.Internal:               "SERVER_ERROR",
	errs.ServiceUnavailable:     "SERVICE_UNAVAILABLE",
}

// v1Equivalent is the code an error of code is answered as on v1: its own,
// but for the one override of the surface: v1 reports a bad field as
// 400 BAD_REQUEST, so a validation_error is answered (and logged) as
// bad_request (docs/v1.md, "PATCH /equipment/{id}" and "Paging").
func v1Equivalent(code errs.Code) errs.Code {
	if code == errs.Validation {
		return errs.BadRequest
	}
	return code
}

// Status returns the HTTP status of an error code.
func Status(code errs.Code) int {
	if s, ok := statusOf[code]; ok {
		return s
	}
	return fiber.StatusInternalServerError
}

// V1Prefix is the path prefix of the v1 surface; errors under it use the v1 envelope.
const V1Prefix = "/api/v1"

// IsV1Path reports whether path is on the v1 surface, ignoring case: the
// router serves only the exact paths, but /API/V1/equipment is still meant
// for v1 and so answers its 404 in the v1 envelope.
func IsV1Path(path string) bool {
	if len(path) < len(V1Prefix) || !strings.EqualFold(path[:len(V1Prefix)], V1Prefix) {
		return false
	}
	return len(path) == len(V1Prefix) || path[len(V1Prefix)] == '/'
}

// ErrorBody is the v2 error envelope.
type ErrorBody struct {
	Error ErrorObject `json:"error"`
}

// ErrorObject is the body of the v2 envelope.
type ErrorObject struct {
	Code      errs.Code `json:"code"`
	Message   string    `json:"message"`
	Details   any       `json:"details"`
	RequestID string    `json:"request_id"`
}

// V1ErrorBody is the v1 error envelope.
type V1ErrorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// BodyLimit is the largest request body accepted, in bytes: the server
// gives it to Fiber, which answers a larger body 413 payload_too_large.
const BodyLimit = 1 << 20

// bodyTooLarge is the message of that 413, formatted from BodyLimit.
var bodyTooLarge = "request body is larger than " + byteSize(BodyLimit)

// byteSize writes n bytes in the largest binary unit (MiB, KiB) that
// divides it exactly, else in bytes.
func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.Itoa(n) + " bytes"
}

// NoSuchRouteMessage is the message of the 404 of a path no route serves,
// which the contract check tells from a resource's 404 by it.
const NoSuchRouteMessage = "no such route"

// NoSuchRoute is the 404 of a path no route serves: the router's own, and
// the server's fallback.
func NoSuchRoute() *errs.Error { return errs.New(errs.NotFound, NoSuchRouteMessage) }

// FromFiber converts Fiber's own errors (unknown route, oversized body,
// bad request) into the service's error type. Fiber's own 405 is not among
// them: it arises only in an app where no handler is left for a path
// served under other methods, and the server's is never such an app (its
// fallback, a catch-all registered last, answers 405 with Allow, which this
// error could not name; fasthttp's GET-only 405 is not enabled): one would
// be a bug of the service, not of the request, so it is an internal error,
// logged with its cause (TestWrongMethods pins the server's 405). Any other
// error that is not
// already an *errs.Error goes through database.Error, so a database failure
// that a store returned unconverted (a transaction that could not begin
// because PostgreSQL refused the connection) is still 503 (with
// Retry-After, as every 503: ErrorHandler), not 500.
func FromFiber(err error) *errs.Error {
	var fe *fiber.Error
	if !errors.As(err, &fe) {
		return errs.As(database.Error(err))
	}
	switch fe.Code {
	case fiber.StatusNotFound:
		return NoSuchRoute()
	case fiber.StatusRequestEntityTooLarge:
		return errs.New(errs.PayloadTooLarge, bodyTooLarge)
	case fiber.StatusRequestTimeout:
		// The connection's read deadline passed before the request was
		// whole (a stalled header block or body).
		return errs.New(errs.RequestTimeout, "the request did not arrive in time")
	case fiber.StatusUnprocessableEntity:
		// Fiber's parsers (BodyParser and the like, which nothing here
		// calls) put their own or encoding/json's text in the message:
		// text the service did not write never reaches a client.
		return errs.New(errs.Validation, "the request could not be read")
	case fiber.StatusServiceUnavailable:
		return errs.New(errs.ServiceUnavailable, "service unavailable")
	case fiber.StatusMethodNotAllowed:
		return &errs.Error{Code: errs.Internal, Message: "internal error", Cause: err}
	}
	if fe.Code >= 400 && fe.Code < 500 {
		// fasthttp could not parse the request itself (a request line,
		// header or chunk it cannot read): nothing of a body was judged.
		return errs.New(errs.BadRequest, "the request could not be read")
	}
	return &errs.Error{Code: errs.Internal, Message: "internal error", Cause: err}
}

// DefaultRetryAfter is the Retry-After, in seconds, of a 503 whose error
// names none (errs.Error.RetryAfter 0): ErrorHandler gives every 503 one.
const DefaultRetryAfter = 1

// RefusedLogEvery is the longest rate of the WARN line about 503 answers
// (docs/observability.md, "Traces and log lines"), as for the other outage lines.
const RefusedLogEvery = telemetry.OutageLogEvery

// ErrorHandler renders every error returned by a handler or middleware in the
// envelope of its surface. Internal causes are logged, never returned.
func ErrorHandler(log *slog.Logger) fiber.ErrorHandler {
	refused := telemetry.NewOutageLog(log, "requests refused: service unavailable", RefusedLogEvery)
	return func(c *fiber.Ctx, err error) error {
		e := FromFiber(err)
		status := Status(e.Code)
		reqID := EnsureRequestID(c)
		c.Locals(localErrorCode, string(loggedCode(c, e.Code)))
		switch {
		case status >= 500 && e.Code == errs.ServiceUnavailable:
			// Expected while draining or while a dependency is down: not
			// an error of the service. Logged at most once per
			// RefusedLogEvery, with the count: each refusal is in the
			// access log, and one line per request made an outage
			// thousands of WARN lines a second. A readiness probe's 503 is
			// not a client's and is left out (Unrefused).
			if c.Locals(localUnrefused) == nil {
				refused.Record(c.UserContext(), e)
			}
		case status >= 500:
			log.ErrorContext(c.UserContext(), "request failed", "code", e.Code, "error", e.Error(),
				"method", c.Method(), "path", c.Path())
		}
		retryAfter := e.RetryAfter
		if retryAfter <= 0 && status == fiber.StatusServiceUnavailable {
			// Every 503 says when to retry (docs/decisions.md, "Retry-After
			// is required on 429 and 503"), stated here once: an error
			// that names no wait of its own gets DefaultRetryAfter.
			retryAfter = DefaultRetryAfter
		}
		if retryAfter > 0 {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(retryAfter))
		}
		if e.Code == errs.InvalidCredentials {
			c.Set(fiber.HeaderWWWAuthenticate, WWWAuthenticate)
		}
		if e.Code == errs.MethodNotAllowed {
			if allow, ok := e.Details.(AllowDetails); ok {
				c.Set(fiber.HeaderAllow, strings.Join(allow.Allow, ", "))
			}
		}
		if IsV1Path(c.Path()) {
			code := v1Equivalent(e.Code)
			name, ok := v1CodeOf[code]
			if !ok {
				// Unreachable while every code has a name (tested); an
				// unnamed code is answered as an internal error.
				code, name = errs.Internal, v1CodeOf[errs.Internal]
			}
			var body V1ErrorBody
			body.Error.Code, body.Error.Message = name, e.Message
			if fields := errs.Issues(e); len(fields) > 1 {
				// The v1 envelope has no details: the message names the
				// fields, as a v1 check's own 400 does.
				body.Error.Message = errs.IssuesText(fields)
			}
			if code == errs.Internal {
				body.Error.Message = "unexpected error; retry with exponential backoff"
			}
			return c.Status(Status(code)).JSON(body)
		}
		msg := e.Message
		if status >= 500 && e.Code == errs.Internal {
			msg = "internal error"
		}
		return c.Status(status).JSON(ErrorBody{Error: ErrorObject{Code: e.Code, Message: msg, Details: e.Details, RequestID: reqID}})
	}
}

// WWWAuthenticate is the challenge of every 401 (RFC 9110, section
// 11.6.1): a bearer key, on both surfaces.
const WWWAuthenticate = `Bearer realm="eventapi"`

// AllowDetails is the details of method_not_allowed.
type AllowDetails struct {
	Allow []string `json:"allow"`
}

const localErrorCode = "eventapi.error_code"

const localUnrefused = "eventapi.unrefused"

// Unrefused keeps the 503 that c's handler answers out of the WARN line
// that counts the requests refused (ErrorHandler): a readiness probe's 503
// says the pod is not ready, which the probe logs once per change of
// state; counted there, the probes would swamp the clients' refusals of an
// outage and go on after the load balancer stopped sending any
// (docs/observability.md, "Traces and log lines").
func Unrefused(c *fiber.Ctx) { c.Locals(localUnrefused, true) }

// loggedCode is the code ErrorCodeOf gives for an error of code rendered
// for c: its own, but on v1 the code it is answered as (v1Equivalent), so a
// bad field is bad_request whichever check found it (docs/observability.md,
// the request log's error_code).
func loggedCode(c *fiber.Ctx, code errs.Code) errs.Code {
	if IsV1Path(c.Path()) {
		return v1Equivalent(code)
	}
	return code
}

// ErrorCodeOf returns the error code ErrorHandler rendered for c's request,
// or "" when it rendered none (a success, or a replayed stored response).
func ErrorCodeOf(c *fiber.Ctx) string {
	code, _ := c.Locals(localErrorCode).(string)
	return code
}
