package errs

import (
	"fmt"
	"strings"
	"testing"
)

// TestInvalidListsAtMostMaxListedFields: a validation_error names every bad
// field up to MaxListedFields, and beyond that the first ones, with the
// count in its message.
func TestInvalidListsAtMostMaxListedFields(t *testing.T) {
	issues := func(n int) []FieldIssue {
		out := make([]FieldIssue, n)
		for i := range out {
			out[i] = FieldIssue{Field: fmt.Sprintf("f%d", i), Issue: "is not a known field"}
		}
		return out
	}
	tests := []struct {
		name    string
		n       int
		listed  int
		message string
	}{
		{"one", 1, 1, "f0: is not a known field"},
		{"a few", 3, 3, "request validation failed"},
		{"the most listed", MaxListedFields, MaxListedFields, "request validation failed"},
		{"more", 90_000, MaxListedFields, "request validation failed: 90000 fields, the first 100 listed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Invalid(issues(tt.n)...)
			got := e.Details.(ValidationDetails).Fields
			if len(got) != tt.listed || got[0].Field != "f0" || e.Message != tt.message {
				t.Fatalf("%d fields listed from f%s, message %q; want %d, %q", len(got), strings.TrimPrefix(got[0].Field, "f"), e.Message, tt.listed, tt.message)
			}
		})
	}
}
