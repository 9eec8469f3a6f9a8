package idempotency

import (
	"slices"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// checksOf lists, for a request's record, the scope with which the
// executing key passed each scope check of its execution (auth.Passed): of
// a check any of several scopes passes (the read scopes of a pick list),
// the first the key holds. A replay goes to a key holding them all
// (replayable): it passes every check the execution passed, so it would
// have got the same answer by executing the request. One name per check
// keeps the records readable by pods of 2.7.1–2.11.0, which stored the
// executing key's scopes in the same place and replay to a key holding
// each name listed. An execution that passed no check (a route no guard ran
// on), and one whose answer is for its key alone, keep the key's scopes, as
// those versions did.
func checksOf(checks *auth.Passed, executing tenancy.ScopeSet) []string {
	sets := checks.Sets()
	if len(sets) == 0 || checks.ForThisKey() {
		return tenancy.ScopeNames(executing.List())
	}
	var out []tenancy.Scope
	for _, set := range sets {
		s := (set & executing).List()[0]
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return tenancy.ScopeNames(out)
}

// replayable refuses a replay to a key that lacks one of the scopes the
// record lists, or, for an answer kept for the key that executed the
// request alone, to any other key. A record is shared by the organization's
// keys (docs/decisions.md, "Edge layer") and a replay skips the route's own
// checks, so without this a key could read, through another key's
// Idempotency-Key, an answer its scopes do not allow (a client record, a
// reservation's truck totals) or a secret made for another key (a webhook
// endpoint's). A record kept without scopes (written before 2.7.1) is
// replayed to any key of the organization.
func replayable(p *tenancy.Principal, rec record) error {
	if rec.Key != "" && rec.Key != p.KeyID.String() {
		return errs.New(errs.IdempotencyKeyMismatch,
			"this Idempotency-Key was used by another API key, and its answer holds a secret shown only to that key: send this request with a new Idempotency-Key")
	}
	var missing []string
	for _, s := range rec.Scopes {
		if !p.Scopes.Has(tenancy.Scope(s)) {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return &errs.Error{Code: errs.InsufficientScope,
		Message: "this Idempotency-Key was executed with scopes this key lacks",
		Details: map[string]any{"required": missing}}
}

// boundKey is the record's Key for an answer for the executing key alone.
func boundKey(checks *auth.Passed, key uuid.UUID) string {
	if !checks.ForThisKey() {
		return ""
	}
	return key.String()
}
