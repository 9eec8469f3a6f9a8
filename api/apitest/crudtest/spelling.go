package crudtest

import (
	"net/url"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// CursorsSurviveSpelling checks that a cursor issued for path?param=first
// goes on with each of the other spellings of the same value
// (docs/decisions.md: a cursor is bound to the values of the filters, not
// their spelling). The list must hold at least two records for first.
func CursorsSurviveSpelling(t *testing.T, o *apitest.Org, path, param, first string, others ...string) {
	t.Helper()
	next := Cursor(t, o, path+"?"+param+"="+url.QueryEscape(first))
	for _, other := range others {
		q := path + "?limit=1&" + param + "=" + url.QueryEscape(other) + "&cursor=" + url.QueryEscape(next)
		if r := o.Get(q); r.Status != 200 || len(r.List()) != 1 {
			t.Errorf("a cursor for %s=%q with %s=%q: %d %s", param, first, param, other, r.Status, r.Body)
		}
	}
}
