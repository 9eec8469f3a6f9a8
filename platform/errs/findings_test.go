package errs

import (
	"errors"
	"testing"
)

// TestFindingsRunSkipsChecksAfterAFailure: once a check failed to answer,
// the checks after it do not run (their statements would meet an aborted
// transaction), and the answer is that failure; findings alone do not stop
// the later checks.
func TestFindingsRunSkipsChecksAfterAFailure(t *testing.T) {
	dbDown := errors.New("connection refused")
	tests := []struct {
		name    string
		answers []error // each check's answer, in order
		ran     int     // checks that ran
		want    error   // nil: a validation_error or nil, see fields
		fields  int
	}{
		{"all pass", []error{nil, nil, nil}, 3, nil, 0},
		{"findings do not stop later checks", []error{InvalidField("a", "bad"), nil, InvalidField("b", "bad")}, 3, nil, 2},
		{"a failure stops the rest", []error{InvalidField("a", "bad"), dbDown, InvalidField("b", "bad")}, 2, dbDown, 0},
		{"a failure first", []error{dbDown, nil}, 1, dbDown, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f Findings
			ran := 0
			for _, answer := range tt.answers {
				f.Run(func() error { ran++; return answer })
			}
			if ran != tt.ran {
				t.Errorf("%d checks ran, want %d", ran, tt.ran)
			}
			got := f.Err()
			switch {
			case tt.want != nil:
				if got != tt.want {
					t.Fatalf("Err = %v, want %v", got, tt.want)
				}
			case tt.fields == 0:
				if got != nil {
					t.Fatalf("Err = %v, want nil", got)
				}
			case len(Issues(got)) != tt.fields:
				t.Fatalf("Err = %v, want a validation_error naming %d fields", got, tt.fields)
			}
		})
	}
}

// TestFindingsKeepTheCountOfUnlistedFields: a check that counted more bad
// fields than it listed (InvalidOf) keeps its count in the merged answer.
func TestFindingsKeepTheCountOfUnlistedFields(t *testing.T) {
	var f Findings
	f.Add(InvalidOf(250, FieldIssue{"a", "bad"}))
	f.Add(InvalidField("b", "bad"))
	got := As(f.Err())
	if want := "request validation failed: 251 fields, the first 2 listed"; got.Message != want {
		t.Fatalf("message %q, want %q", got.Message, want)
	}
	if n := len(Issues(got)); n != 2 {
		t.Fatalf("%d fields listed, want 2", n)
	}
}
