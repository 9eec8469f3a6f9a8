package v1

import (
	"errors"
	"testing"

	"github.com/eventapi/eventapi/platform/errs"
)

// TestJoinBadRequests: the 400s of several checks become one naming every
// field in order; nothing bad is nil; any other error wins as it is.
func TestJoinBadRequests(t *testing.T) {
	page := badRequestf("page", "bad")
	limitAndStatus := badRequest(errs.FieldIssue{Field: "limit", Issue: "bad"}, errs.FieldIssue{Field: "status", Issue: "bad"})
	down := errors.New("database down")
	for _, tt := range []struct {
		name string
		in   []error
		want string // the message; "" for nil
	}{
		{"none", []error{nil, nil}, ""},
		{"one", []error{nil, page}, "page: bad"},
		{"all, in order", []error{page, limitAndStatus}, "page: bad; limit: bad; status: bad"},
		{"another error as it is", []error{page, down}, "database down"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := joinBadRequests(tt.in...)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v, want nil", err)
			case tt.want == "":
			case err == down && tt.want == down.Error():
			case errs.As(err).Code != errs.BadRequest || errs.As(err).Message != tt.want:
				t.Fatalf("error %v, want BAD_REQUEST %q", err, tt.want)
			}
		})
	}
}
