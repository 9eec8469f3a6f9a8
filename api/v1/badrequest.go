package v1

import (
	"github.com/eventapi/eventapi/platform/errs"
)

// badRequest is a 400 BAD_REQUEST whose message names every bad field: the v1
// envelope has no details, so the message is all a caller gets.
func badRequest(issues ...errs.FieldIssue) *errs.Error {
	return &errs.Error{Code: errs.BadRequest, Message: errs.IssuesText(issues),
		Details: errs.ValidationDetails{Fields: issues}}
}

// nameFields turns a validation_error into badRequest, rewriting the issue
// of a field found in canonical to its canonical text. Other errors pass.
func nameFields(err error, canonical map[string]string) error {
	e := errs.As(err)
	d, ok := e.Details.(errs.ValidationDetails)
	if e.Code != errs.Validation || !ok {
		return err
	}
	issues := make([]errs.FieldIssue, len(d.Fields))
	for i, is := range d.Fields {
		if text, ok := canonical[is.Field]; ok {
			is.Issue = text
		}
		issues[i] = is
	}
	return badRequest(issues...)
}

// badRequestf is badRequest for one field.
func badRequestf(field, issue string) *errs.Error {
	return badRequest(errs.FieldIssue{Field: field, Issue: issue})
}

// joinBadRequests merges the badRequests of several checks into one naming
// every field, in order; nil when all passed. An error that is not a
// badRequest is returned as it is.
func joinBadRequests(list ...error) error {
	var issues []errs.FieldIssue
	for _, err := range list {
		if err == nil {
			continue
		}
		e := errs.As(err)
		d, ok := e.Details.(errs.ValidationDetails)
		if e.Code != errs.BadRequest || !ok {
			return err
		}
		issues = append(issues, d.Fields...)
	}
	if len(issues) == 0 {
		return nil
	}
	return badRequest(issues...)
}
