// Package errs defines the single error type of eventapi. Every layer returns
// *errs.Error (or wraps a cause in one); the HTTP layer maps Code to a status in
// exactly one place (api/rest), so handlers and stores never pick status codes.
package errs

import (
	"errors"
	"fmt"
	"strings"
)

// Code is a machine-readable error code. Clients route on it.
type Code string

// The v2 error codes (documented in api/openapi/openapi.yaml).
const (
	MalformedJSON          Code = "malformed_json"
	InvalidCredentials     Code = "invalid_credentials"
	InsufficientScope      Code = "insufficient_scope"
	NotFound               Code = "not_found"
	MethodNotAllowed       Code = "method_not_allowed"
	DuplicateRecord        Code = "duplicate_record"
	IdempotencyKeyMismatch Code = "idempotency_key_mismatch"
	IdempotencyKeyInUse    Code = "idempotency_key_in_use"
	PayloadTooLarge        Code = "payload_too_large"
	// The HTTP layer's refusals of a request it cannot read (docs/edge.md).
	URITooLong             Code = "uri_too_long"
	UnsupportedMediaType   Code = "unsupported_media_type"
	HeadersTooLarge        Code = "headers_too_large"
	RequestTimeout         Code = "request_timeout"
	Validation             Code = "validation_error"
	InvalidTransition      Code = "invalid_transition"
	OverbookBlocked        Code = "overbook_blocked"
	OverbookReasonRequired Code = "overbook_reason_required"
	RateLimited            Code = "rate_limited"
	Internal               Code = "internal_error"
	ServiceUnavailable     Code = "service_unavailable"
	// BadRequest is used by the v1 surface for bad query parameters and
	// PATCH bodies without a writable field.
	BadRequest Code = "bad_request"
	// CursorExpired refuses a change feed cursor that the feed's retention
	// has overtaken (docs/changes.md, "An expired cursor"): 410.
	CursorExpired Code = "cursor_expired"
	// PreconditionFailed refuses a v2 write that asks for a condition: an
	// If-Match naming entity tags (compared strongly, and this API's tags
	// are weak, so none matches) or an If-Unmodified-Since (no answer
	// carries a modification date) (docs/decisions.md, "Conditional
	// reads"): 412.
	PreconditionFailed Code = "precondition_failed"
)

// Error is the one error type of the service.
type Error struct {
	Code    Code
	Message string
	// Details is rendered as error.details; nil renders as null.
	Details any
	// RetryAfter, when positive, becomes a Retry-After header (seconds).
	RetryAfter int
	// Cause is logged, never shown to clients.
	Cause error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// New returns an error with a code and message.
func New(code Code, msg string) *Error { return &Error{Code: code, Message: msg} }

// Newf returns an error with a formatted message.
func Newf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithDetails returns a copy of e carrying details.
func (e *Error) WithDetails(d any) *Error {
	c := *e
	c.Details = d
	return &c
}

// Wrap returns an internal error that hides cause from clients.
func Wrap(cause error, msg string) *Error {
	return &Error{Code: Internal, Message: msg, Cause: cause}
}

// As extracts an *Error from err; a plain error becomes internal_error.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: Internal, Message: "internal error", Cause: err}
}

// Is reports whether err carries the given code.
func Is(err error, code Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// FieldIssue names one bad input field.
type FieldIssue struct {
	Field string `json:"field"`
	Issue string `json:"issue"`
}

// ValidationDetails is the details object of validation_error.
type ValidationDetails struct {
	Fields []FieldIssue `json:"fields"`
	// unlisted counts the bad fields found but not in Fields (InvalidOf),
	// so that an answer merged from this one (Findings) keeps the count.
	unlisted int
}

// Issues returns the field issues of a validation_error, so that a check
// can add them to the issues it collects; nil for any other error.
func Issues(err error) []FieldIssue {
	e := As(err)
	if d, ok := e.Details.(ValidationDetails); ok && e.Code == Validation {
		return d.Fields
	}
	return nil
}

// MaxListedFields bounds the fields an answer lists (the issues of a
// validation_error, the fields of an ignored_fields warning), so that an
// error's size does not grow with its body's: a 1 MiB body can hold 90,000
// unknown fields, 4.8 MB of answer if each were named.
const MaxListedFields = 100

// IssuesText is issues on one line, "field: issue; field: issue", for an
// answer whose envelope carries no details (v1's), so that its message
// names every field.
func IssuesText(issues []FieldIssue) string {
	parts := make([]string, len(issues))
	for i, is := range issues {
		parts[i] = is.Field + ": " + is.Issue
	}
	return strings.Join(parts, "; ")
}

// Invalid returns a validation_error naming every bad field, the first
// MaxListedFields of them when there are more (the message gives the count).
func Invalid(issues ...FieldIssue) *Error { return InvalidOf(len(issues), issues...) }

// InvalidOf is Invalid for a check that found total bad fields and kept
// only issues of them (a body's issues past MaxListedFields are counted,
// not collected).
func InvalidOf(total int, issues ...FieldIssue) *Error {
	msg := "request validation failed"
	switch {
	case total > MaxListedFields || total > len(issues):
		msg = fmt.Sprintf("request validation failed: %d fields, the first %d listed", total, min(len(issues), MaxListedFields))
		issues = issues[:min(len(issues), MaxListedFields)]
	case len(issues) == 1:
		msg = fmt.Sprintf("%s: %s", issues[0].Field, issues[0].Issue)
	}
	return &Error{Code: Validation, Message: msg, Details: ValidationDetails{Fields: issues, unlisted: max(total-len(issues), 0)}}
}

// Combine returns the answer to several checks of one request, as Findings
// does: nil when all passed; the first error that is not a validation_error
// when there is one (a failure to check is not a finding); else one
// validation_error naming the fields of them all, so that a client learns
// every bad field at once.
func Combine(checks ...error) error {
	var f Findings
	for _, err := range checks {
		f.Add(err)
	}
	return f.Err()
}

// InvalidField is shorthand for a validation_error on one field.
func InvalidField(field, issue string) *Error {
	return Invalid(FieldIssue{Field: field, Issue: issue})
}

// NotFoundOf returns not_found for a resource kind: "<kind> not found".
func NotFoundOf(kind string) *Error { return Newf(NotFound, "%s not found", kind) }
