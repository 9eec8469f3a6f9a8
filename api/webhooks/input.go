package webhooks

import (
	"context"
	"fmt"
	"slices"

	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/changes"
	store "github.com/eventapi/eventapi/api/storage/webhooks"
)

// readOnly lists the fields of an endpoint that a body may never write:
// those of every record and the ones the server sets, so every field its
// GET or its registration shows that no body sets (docs/decisions.md,
// "POST refuses unknown fields"; TestAnEchoedEndpointIsReadOnly).
var readOnly = rest.ReadOnlyFields(nil, "previous_secret_expires_at", "failing_since", "resume_cursor", "created_by_key_id", "secret")

// The field rules of POST and PATCH bodies, from the OpenAPI document;
// description is free text, the other strings one line.
var createRules, updateRules = openapi.Rules("WebhookEndpointCreate").MultiLine("description"),
	openapi.Rules("WebhookEndpointUpdate").MultiLine("description")

// decoded is a POST or PATCH body.
type decoded struct {
	url         rest.Field[string]
	description rest.Field[string]
	events      rest.Field[[]string]
	status      rest.Field[string]
}

// decode reads a body; create enforces the required fields. The URL is
// checked (scheme, public addresses; CheckURLFirst has usually done so before
// the transaction) and every event type must be known.
func (h handlers) decode(ctx context.Context, in *rest.Input, create bool) decoded {
	rules := updateRules
	if create {
		rules = createRules
	}
	var d decoded
	d.url = in.String("url", rules.Get("url"))
	d.description = in.String("description", rules.Get("description"))
	d.events = in.StringList("enabled_events", rules.Get("enabled_events"))
	if create {
		in.ReadOnly("status")
	} else {
		d.status = in.String("status", rules.Get("status"))
	}
	in.ReadOnly(readOnly...)
	if d.url.Set && !d.url.Null && d.url.Value != "" {
		if issue := urlIssue(ctx, d.url.Value, h.opt); issue != "" {
			in.Issue("url", string(issue))
		}
	}
	if d.events.Set && !d.events.Null {
		d.events.Value = checkEvents(in, d.events.Value)
	}
	return d
}

// checkEvents requires one or more known change types, or "*", and drops
// repeats; "*" covers every type, so the types listed beside it are dropped
// too and the endpoint stores ["*"].
func checkEvents(in *rest.Input, events []string) []string {
	if len(events) == 0 {
		in.Issue("enabled_events", `must list at least one change type, or "*" for all`)
		return nil
	}
	var out []string
	bad := false
	for i, e := range events {
		if e != store.AllEvents && !changes.ValidType(e) {
			// Named by element, as a value of the wrong type is.
			in.Issue(fmt.Sprintf("enabled_events[%d]", i), `"`+e+`" is not a change type; use types such as event.created or quote.approved, or "*" for all`)
			bad = true
			continue
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	if bad {
		return nil
	}
	if slices.Contains(out, store.AllEvents) {
		return []string{store.AllEvents}
	}
	return out
}
