package errs

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
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
		total   int // found by the check; 0: n (Invalid)
		listed  int
		message string
	}{
		{"one", 1, 0, 1, "f0: is not a known field"},
		{"a few", 3, 0, 3, "request validation failed"},
		{"the most listed", MaxListedFields, 0, MaxListedFields, "request validation failed"},
		{"more", 90_000, 0, MaxListedFields, "request validation failed: 90000 fields, the first 100 listed"},
		// a check that kept the first MaxListedFields and counted the rest
		{"more, counted", MaxListedFields, 90_000, MaxListedFields, "request validation failed: 90000 fields, the first 100 listed"},
		{"one of two kept", 1, 2, 1, "request validation failed: 2 fields, the first 1 listed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Invalid(issues(tt.n)...)
			if tt.total != 0 {
				e = InvalidOf(tt.total, issues(tt.n)...)
			}
			got := e.Details.(ValidationDetails).Fields
			if len(got) != tt.listed || got[0].Field != "f0" || e.Message != tt.message {
				t.Fatalf("%d fields listed from f%s, message %q; want %d, %q", len(got), strings.TrimPrefix(got[0].Field, "f"), e.Message, tt.listed, tt.message)
			}
		})
	}
}

func TestCombine(t *testing.T) {
	dbDown := errors.New("connection refused")
	conflict := New(DuplicateRecord, "taken")
	aborted := New(Internal, "current transaction is aborted")
	fieldless := New(Validation, "request validation failed")
	tests := []struct {
		name   string
		checks []error
		want   error    // when the answer is one of the checks itself
		fields []string // when it is a merged validation_error
	}{
		{"all passed", []error{nil, nil}, nil, nil},
		{"one finding", []error{nil, InvalidField("a", "bad")}, nil, []string{"a"}},
		{"findings of each check, in order", []error{Invalid(FieldIssue{"a", "x"}, FieldIssue{"b", "y"}), nil, InvalidField("c", "z")}, nil, []string{"a", "b", "c"}},
		{"a failure to check wins over findings", []error{InvalidField("a", "bad"), dbDown}, dbDown, nil},
		{"another error code wins over findings", []error{InvalidField("a", "bad"), conflict, InvalidField("b", "bad")}, conflict, nil},
		// the first failure wins: a check run after a failed statement
		// fails too (its transaction is aborted), with a less telling error
		{"the first failure wins over later ones", []error{InvalidField("a", "bad"), dbDown, aborted, InvalidField("b", "bad")}, dbDown, nil},
		// a validation_error that names no field is not a finding to merge
		// away: dropped, the failed check would pass
		{"a validation_error naming no field", []error{nil, fieldless}, fieldless, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Combine(tt.checks...)
			if tt.fields == nil {
				if got != tt.want {
					t.Fatalf("Combine = %v, want %v", got, tt.want)
				}
				return
			}
			if !Is(got, Validation) {
				t.Fatalf("Combine = %v, want a validation_error", got)
			}
			var names []string
			for _, f := range Issues(got) {
				names = append(names, f.Field)
			}
			if !slices.Equal(names, tt.fields) {
				t.Fatalf("fields %v, want %v", names, tt.fields)
			}
		})
	}
}

func TestIssues(t *testing.T) {
	one := FieldIssue{Field: "name", Issue: "must not be empty"}
	tests := []struct {
		name string
		err  error
		want []FieldIssue
	}{
		{"validation", Invalid(one), []FieldIssue{one}},
		{"wrapped validation", fmt.Errorf("check: %w", InvalidField("name", "must not be empty")), []FieldIssue{one}},
		{"another code", New(NotFound, "no such record"), nil},
		{"not ours", errors.New("boom"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Issues(tt.err); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Issues = %v, want %v", got, tt.want)
			}
		})
	}
}
