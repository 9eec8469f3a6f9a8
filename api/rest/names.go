package rest

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/eventapi/eventapi/platform/errs"
)

// repeatedName returns the JSON Pointer (RFC 6901) of the first object
// member whose name an earlier member of the same object already has, and
// whether there is one. Names are compared as decoded, so "a" and "\u0061"
// are the same name. RFC 8259 leaves the meaning of such an object to the
// reader (section 4): encoding/json keeps the last value, other readers the
// first or both, so a proxy, a log and this service could each act on a
// different body. body must be valid JSON (json.Valid).
func repeatedName(body []byte) (jsontext.Pointer, bool) {
	// jsontext refuses a repeated name by default; invalid UTF-8 is judged
	// before (ParseObject), with its own message. IsValid reads with a
	// pooled decoder, without allocating; only a refused body is read again
	// for the name's place (a bytes.Buffer is read in place, not copied).
	if jsontext.Value(body).IsValid(allowInvalidUTF8) {
		return "", false
	}
	_, err := jsontext.NewDecoder(bytes.NewBuffer(body), allowInvalidUTF8).ReadValue()
	var syntax *jsontext.SyntacticError
	if errors.As(err, &syntax) && errors.Is(syntax.Err, jsontext.ErrDuplicateName) {
		return syntax.JSONPointer, true
	}
	return "", false
}

// allowInvalidUTF8 is made once: an option built per call would allocate.
var allowInvalidUTF8 = jsontext.AllowInvalidUTF8(true)

// repeatedNameError is the 400 for a body that names a member twice in one
// object (docs/decisions.md, "A name given twice in one JSON object").
func repeatedNameError(at jsontext.Pointer) error {
	where := "the top-level object"
	if parent := at.Parent(); parent != "" {
		where = fmt.Sprintf("the object at %s", errs.Echo(string(parent)))
	}
	return errs.Newf(errs.MalformedJSON, "the request body gives the name %q more than once in %s; each name may appear once in an object",
		errs.Echo(at.LastToken()), where)
}
