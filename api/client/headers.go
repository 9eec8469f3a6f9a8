package client

import (
	"net/http"
	"time"

	"github.com/oapi-codegen/runtime"
	openapi_types "github.com/oapi-codegen/runtime/types"
)

// UnboundHeaderPrefix names where the transport keeps a value of a response
// header the OpenAPI documents declare that the generated code could not
// bind to its declared type: X-Request-Id "a1b2c3d4-gw-7f3a" (a gateway's
// own id, not a uuid) arrives as X-Unbound-X-Request-Id, and the typed
// response's field is left zero. The generated Parse…Response functions
// fail the whole call on such a value, a committed write's answer included
// (docs/sdk.md, "Headers a gateway rewrites").
const UnboundHeaderPrefix = "X-Unbound-"

// headerFormat is a declared response header's schema type and format, the
// two that choose the Go type the generated code binds it to.
type headerFormat struct{ Type, Format string }

// declaredHeaders are the response headers the v2 and v1 documents declare
// (api/openapi/openapi.yaml and v1.yaml; the generated code reads each of
// them on every answer that declares it), by name. TestDeclaredHeaders
// holds this table equal to the served documents.
var declaredHeaders = map[string]headerFormat{
	"Accept-Encoding":         {"string", ""},
	"Cache-Control":           {"string", ""},
	"Content-Security-Policy": {"string", ""},
	"Deprecation":             {"boolean", ""},
	"ETag":                    {"string", ""},
	"Idempotent-Replayed":     {"string", ""},
	"Retry-After":             {"integer", ""},
	"Sunset":                  {"string", ""},
	"WWW-Authenticate":        {"string", ""},
	"X-RateLimit-Limit":       {"integer", ""},
	"X-RateLimit-Remaining":   {"integer", ""},
	"X-RateLimit-Reset":       {"string", "date-time"},
	"X-Request-Id":            {"string", "uuid"},
}

// binds reports whether the generated code binds v to a header of format
// f, by running the same binder (oapi-codegen's runtime) with the Go type
// the generator picks for it. An empty value does not bind: the generated
// code refuses it for a required header, and it carries nothing.
func (f headerFormat) binds(v string) bool {
	var dest any
	switch {
	case f.Type == "integer":
		dest = new(int)
	case f.Type == "number":
		dest = new(float64)
	case f.Type == "boolean":
		dest = new(bool)
	case f.Format == "uuid":
		dest = new(openapi_types.UUID)
	case f.Format == "date-time":
		dest = new(time.Time)
	case f.Format == "date":
		dest = new(openapi_types.Date)
	default:
		dest = new(string)
	}
	return runtime.BindStyledParameterWithOptions("simple", "header", v, dest, runtime.BindStyledParameterOptions{
		ParamLocation: runtime.ParamLocationHeader, Required: true, Type: f.Type, Format: f.Format}) == nil
}

// setAside moves each value of a declared header in h that would not bind
// to UnboundHeaderPrefix and its name, keeping the values that bind in
// their order, so that the generated parser sees only values it can read.
func setAside(h http.Header) {
	for name, f := range declaredHeaders {
		values := h.Values(name)
		var keep, unbound []string
		for _, v := range values {
			if f.binds(v) {
				keep = append(keep, v)
			} else {
				unbound = append(unbound, v)
			}
		}
		if len(unbound) == 0 {
			continue
		}
		h.Del(name)
		for _, v := range keep {
			h.Add(name, v)
		}
		for _, v := range unbound {
			h.Add(UnboundHeaderPrefix+name, v)
		}
	}
}
