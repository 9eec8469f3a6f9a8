package idempotency

import (
	"slices"
	"strings"

	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// checkSeparator joins the scopes of one check in a record: any one of them
// passes it. No scope name holds it.
const checkSeparator = "|"

// checksOf encodes the scope checks a request passed (auth.Passed) for its
// record, each as its scopes' names joined by checkSeparator. A check of one
// scope is that scope's name: records written before 2.11.1 listed the
// executing key's scopes, each read now as a check of its own, and a pod of
// such a version reads a check of several scopes as a scope no key holds,
// so during a rolling upgrade it refuses such a replay rather than giving
// it to a key that does not pass the check. An execution that passed no
// check (a route no guard ran on) keeps the executing key's scopes, each a
// check: a record without checks would replay to any key.
func checksOf(sets []tenancy.ScopeSet, executing tenancy.ScopeSet) []string {
	if len(sets) == 0 {
		return tenancy.ScopeNames(executing.List())
	}
	out := make([]string, 0, len(sets))
	for _, set := range sets {
		out = append(out, strings.Join(tenancy.ScopeNames(set.List()), checkSeparator))
	}
	return out
}

// replayable refuses a replay to a key that does not pass every scope check
// the execution passed. A record is shared by the organization's keys
// (docs/decisions.md, "Edge layer") and a replay skips the route's own
// checks, so without this a key could read, through another key's
// Idempotency-Key, an answer its scopes do not allow (a client record, a
// new webhook endpoint's secret, a reservation's truck totals). A key that
// passes them would have got the same answer by executing the request. The
// 403 names the scopes of the checks it fails. A record kept without checks
// (written before 2.7.1) is replayed to any key of the organization.
func replayable(scopes tenancy.ScopeSet, rec record) error {
	var required []string
	for _, check := range rec.Scopes {
		names := strings.Split(check, checkSeparator)
		alternatives := make([]tenancy.Scope, len(names))
		for i, n := range names {
			alternatives[i] = tenancy.Scope(n)
		}
		if scopes.HasAny(alternatives...) {
			continue
		}
		for _, n := range names {
			if !slices.Contains(required, n) {
				required = append(required, n)
			}
		}
	}
	if len(required) == 0 {
		return nil
	}
	return &errs.Error{Code: errs.InsufficientScope,
		Message: "this Idempotency-Key was executed with scopes this key lacks",
		Details: map[string]any{"required": required}}
}
