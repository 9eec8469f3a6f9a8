package v1

import (
	"github.com/eventapi/eventapi/platform/errs"
)

// A bad v1 field is a validation_error like v2's (errs.Invalid, errs.Combine),
// which the error handler answers as 400 BAD_REQUEST with a message naming
// every field (rest.ErrorHandler, v1Equivalent): the v1 envelope has no
// details, so the message is all a caller gets.

// nameFields rewrites, in a validation_error, the issue of each field found
// in canonical to its canonical text (the v1 wording of docs/v1.md). Other
// errors pass as they are.
func nameFields(err error, canonical map[string]string) error {
	fields := errs.Issues(err)
	if fields == nil {
		return err
	}
	issues := make([]errs.FieldIssue, len(fields))
	for i, is := range fields {
		if text, ok := canonical[is.Field]; ok {
			is.Issue = text
		}
		issues[i] = is
	}
	return errs.Invalid(issues...)
}
