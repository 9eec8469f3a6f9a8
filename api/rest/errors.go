// Package rest is the HTTP plumbing shared by every resource: the one map
// from error code to status and the error envelopes (v2 and v1), response
// envelopes, strict JSON input decoding with per-field validation, opaque
// tamper-evident cursors, page parameters and expand lists.
package rest

import (
	"errors"
	"log/slog"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
)

// statusOf is the single map from error code to HTTP status.
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
	errs.RateLimited:            fiber.StatusTooManyRequests,
	errs.Internal:               fiber.StatusInternalServerError,
	errs.ServiceUnavailable:     fiber.StatusServiceUnavailable,
}

// v1CodeOf maps codes to the v1 surface's upper-case codes. v1 reports
// validation problems as 400 BAD_REQUEST.
var v1CodeOf = map[errs.Code]struct {
	code   string
	status int
}{
	errs.MalformedJSON:        {"BAD_REQUEST", fiber.StatusBadRequest},
	errs.BadRequest:           {"BAD_REQUEST", fiber.StatusBadRequest},
	errs.Validation:           {"BAD_REQUEST", fiber.StatusBadRequest},
	errs.PayloadTooLarge:      {"BAD_REQUEST", fiber.StatusRequestEntityTooLarge},
	errs.URITooLong:           {"BAD_REQUEST", fiber.StatusRequestURITooLong},
	errs.HeadersTooLarge:      {"BAD_REQUEST", fiber.StatusRequestHeaderFieldsTooLarge},
	errs.RequestTimeout:       {"BAD_REQUEST", fiber.StatusRequestTimeout},
	errs.UnsupportedMediaType: {"BAD_REQUEST", fiber.StatusUnsupportedMediaType},
	errs.InvalidCredentials:   {"UNAUTHORIZED", fiber.StatusUnauthorized},
	errs.InsufficientScope:    {"FORBIDDEN", fiber.StatusForbidden},
	errs.NotFound:             {"NOT_FOUND", fiber.StatusNotFound},
	errs.MethodNotAllowed:     {"METHOD_NOT_ALLOWED", fiber.StatusMethodNotAllowed},
	errs.RateLimited:          {"RATE_LIMITED", fiber.StatusTooManyRequests},
	errs.ServiceUnavailable:   {"SERVICE_UNAVAILABLE", fiber.StatusServiceUnavailable},
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

// FromFiber converts Fiber's own errors (unknown route, oversized body,
// bad request) into the service's error type. Any other error that is not
// already an *errs.Error goes through database.Error, so a database failure
// that a store returned unconverted (a transaction that could not begin
// because PostgreSQL refused the connection) is still 503 with Retry-After,
// not 500.
func FromFiber(err error) *errs.Error {
	var fe *fiber.Error
	if !errors.As(err, &fe) {
		return errs.As(database.Error(err))
	}
	switch fe.Code {
	case fiber.StatusNotFound:
		return errs.New(errs.NotFound, "no such route")
	case fiber.StatusMethodNotAllowed:
		return errs.New(errs.MethodNotAllowed, "method not allowed on this path")
	case fiber.StatusRequestEntityTooLarge:
		return errs.New(errs.PayloadTooLarge, "request body is larger than 1 MiB")
	case fiber.StatusRequestTimeout:
		// The connection's read deadline passed before the request was
		// whole (a stalled header block or body).
		return errs.New(errs.RequestTimeout, "the request did not arrive in time")
	case fiber.StatusUnprocessableEntity:
		return errs.New(errs.Validation, fe.Message)
	case fiber.StatusServiceUnavailable:
		return &errs.Error{Code: errs.ServiceUnavailable, Message: "service unavailable", RetryAfter: 1}
	}
	if fe.Code >= 400 && fe.Code < 500 {
		// fasthttp could not parse the request itself (a request line,
		// header or chunk it cannot read): nothing of a body was judged.
		return errs.New(errs.BadRequest, "the request could not be read")
	}
	return &errs.Error{Code: errs.Internal, Message: "internal error", Cause: err}
}

// ErrorHandler renders every error returned by a handler or middleware in the
// envelope of its surface. Internal causes are logged, never returned.
func ErrorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		e := FromFiber(err)
		status := Status(e.Code)
		reqID := EnsureRequestID(c)
		c.Locals(localErrorCode, string(loggedCode(c, e.Code)))
		switch {
		case status >= 500 && e.Code == errs.ServiceUnavailable:
			// Expected while draining or while a dependency is down (a
			// readiness probe answers it every second): not an error of
			// the service.
			log.WarnContext(c.UserContext(), "request refused: service unavailable", "error", e.Error(),
				"method", c.Method(), "path", c.Path())
		case status >= 500:
			log.ErrorContext(c.UserContext(), "request failed", "code", e.Code, "error", e.Error(),
				"method", c.Method(), "path", c.Path())
		}
		if e.RetryAfter > 0 {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(e.RetryAfter))
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
			v1, ok := v1CodeOf[e.Code]
			if !ok {
				v1.code, v1.status = "SERVER_ERROR", fiber.StatusInternalServerError
			}
			var body V1ErrorBody
			body.Error.Code, body.Error.Message = v1.code, e.Message
			if d, ok := e.Details.(errs.ValidationDetails); ok && len(d.Fields) > 1 {
				// The v1 envelope has no details: the message names the
				// fields, as a v1 check's own 400 does.
				body.Error.Message = errs.IssuesText(d.Fields)
			}
			if v1.status >= 500 && v1.code == "SERVER_ERROR" {
				body.Error.Message = "unexpected error; retry with exponential backoff"
			}
			return c.Status(v1.status).JSON(body)
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

// loggedCode is the code ErrorCodeOf gives for an error of code rendered
// for c: its own, but on v1 a validation_error is bad_request, the v2 code
// of the 400 BAD_REQUEST v1 answers for a bad field, whichever check found
// it (docs/observability.md, the request log's error_code).
func loggedCode(c *fiber.Ctx, code errs.Code) errs.Code {
	if code == errs.Validation && IsV1Path(c.Path()) {
		return errs.BadRequest
	}
	return code
}

// ErrorCodeOf returns the error code ErrorHandler rendered for c's request,
// or "" when it rendered none (a success, or a replayed stored response).
func ErrorCodeOf(c *fiber.Ctx) string {
	code, _ := c.Locals(localErrorCode).(string)
	return code
}
