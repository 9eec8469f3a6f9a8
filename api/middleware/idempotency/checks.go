package idempotency

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// keyPrefix starts the element of a record's Scopes that names the API key
// its answer is for alone: no scope is named so, so a pod of 2.7.1–2.11.0,
// which reads every element as a scope, replays such a record to no key.
const keyPrefix = "key:"

// notKeptPrefix starts the element of a record's Scopes that says its
// answer was not kept, followed by the answer's size in bytes
// (MaxKeptAnswer); a pod of 2.7.1–2.11.1 reads it as a scope no key holds
// and refuses the replay (403, naming it in details.required) rather than
// answering an empty body.
const notKeptPrefix = "answer-not-kept:"

// MaxKeptAnswer is the largest answer body a record keeps for replays.
// Every copy of a record is read whole (a Redis value, a database row): a
// keyed PATCH of a pick list can answer 235 MB, which kept whole is one
// Redis value of 335 MB that no read fetches within the store's timeout,
// so every retry of the key would answer 503 for a day while the shared
// Redis holds it. A larger answer is not kept: the record says so,
// and a replay is refused with what the request did (notKept).
const MaxKeptAnswer = 4 << 20

// notKept returns the refusal of a replay whose answer, of size bytes and
// the given status, was not kept.
func notKept(status int, size string) error {
	return errs.New(errs.IdempotencyKeyMismatch, fmt.Sprintf(
		"the request with this Idempotency-Key was executed (status %d), and its answer of %s bytes, more than the %d a replay keeps, was not kept: read the record, or send the request again with a new Idempotency-Key",
		status, size, MaxKeptAnswer))
}

// keptBody returns the part of an answer body a record keeps (all of it,
// or nothing past MaxKeptAnswer) and adds to scopes the note of an answer
// not kept.
func keptBody(body []byte, scopes []string) ([]byte, []string) {
	if len(body) <= MaxKeptAnswer {
		return body, scopes
	}
	return nil, append(scopes, notKeptPrefix+strconv.Itoa(len(body)))
}

// checksOf lists what a key needs for a replay of the request's answer
// (replayable): the scope with which the executing key passed each scope
// check of its execution (auth.Passed; of a check any of several scopes
// passes, such as the read scopes of a pick list, the first the key
// holds). A key holding them all passes every check the execution passed,
// so it would have got the same answer by executing the request. One name
// per check keeps the records readable by pods of 2.7.1–2.11.0, which
// stored the executing key's scopes in the same place and replay to a key
// holding each name listed. An answer for the executing key alone (a
// secret the server made, auth.ForThisKeyOnly) also lists keyPrefix and
// the key's id, in the list itself, so that every copy of the record, by
// any version, carries it. An execution that passed no check (a route no
// guard ran on) keeps the key's scopes, as those versions did.
func checksOf(checks *auth.Passed, p *tenancy.Principal) []string {
	scopes := p.Scopes.List()
	if sets := checks.Sets(); len(sets) > 0 {
		scopes = nil
		for _, set := range sets {
			s := (set & p.Scopes).List()[0]
			if !slices.Contains(scopes, s) {
				scopes = append(scopes, s)
			}
		}
	}
	out := tenancy.ScopeNames(scopes)
	if checks.ForThisKey() {
		out = append(out, keyPrefix+p.KeyID.String())
	}
	return out
}

// forOneKey reports whether rec's answer is for the key that executed the
// request alone (checksOf lists that key): it shows a secret.
func (r record) forOneKey() bool {
	return slices.ContainsFunc(r.Scopes, func(s string) bool { return strings.HasPrefix(s, keyPrefix) })
}

// replayable refuses a replay to a key that lacks one of the scopes the
// record lists (403 naming them), then, for an answer kept for the key that
// executed the request alone, to any other key (409): allowed. A record is
// shared by the organization's keys (docs/decisions.md, "Edge layer") and a
// replay skips the route's own checks, so without this a key could read,
// through another key's Idempotency-Key, an answer its scopes do not allow
// (a client record, a reservation's truck totals) or a secret made for
// another key (a webhook endpoint's). A record kept without scopes
// (written before 2.7.1) is replayed to any key of the organization.
//
// A record whose answer was not kept (keptBody) is then refused with what
// the request did, 409, to every key: the scope checks come first, so that
// the 409 does not tell a key without the route's scope that the request
// succeeded.
func replayable(p *tenancy.Principal, rec record) error {
	if err := allowed(p, rec); err != nil {
		return err
	}
	for _, s := range rec.Scopes {
		if n, ok := strings.CutPrefix(s, notKeptPrefix); ok {
			return notKept(rec.Status, n)
		}
	}
	return nil
}

// allowed refuses p a completed record that another key's checks or
// secret make unfit for it, as replayable says, whatever request p sent:
// Handle asks it before it compares p's request with the record's, so that
// a key the record is not for gets one answer whether its request is the
// stored one or not (docs/edge.md, "Idempotency-Key"). Compared first, a
// key holding the route's scopes but not a scope the execution also passed
// (the read scope of a booking's truck warnings) got 409 for a wrong guess
// of another key's body and 403 for the right one.
func allowed(p *tenancy.Principal, rec record) error {
	var missing []string
	bound := ""
	for _, s := range rec.Scopes {
		if id, ok := strings.CutPrefix(s, keyPrefix); ok {
			bound = id
		} else if !strings.HasPrefix(s, notKeptPrefix) && !p.Scopes.Has(tenancy.Scope(s)) {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		return &errs.Error{Code: errs.InsufficientScope,
			Message: "this Idempotency-Key was executed with scopes this key lacks",
			Details: map[string]any{"required": missing}}
	}
	if bound != "" && bound != p.KeyID.String() {
		return errs.New(errs.IdempotencyKeyMismatch,
			"this Idempotency-Key was used by another API key, and its answer holds a secret shown only to that key: send this request with a new Idempotency-Key")
	}
	return nil
}
