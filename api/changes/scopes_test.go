package changes_test

import (
	"reflect"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestTypeFilterNeedsTheReadScopeOfItsTypes: a type filter naming a type
// whose object the key may not read is 403 insufficient_scope naming the
// scopes of the first such object type, as a webhook subscription is
// (changes.CheckReadable; docs/changes.md, "Who sees what"), never an
// empty feed; a mix is refused whole; readable types and no filter list as
// before; "*" is no change type (422).
func TestTypeFilterNeedsTheReadScopeOfItsTypes(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	client := create(t, a, "/api/v2/clients", map[string]any{"name": "A client"})
	settle(t, a, "&type=client.created", holds(client["id"]))

	clientsOnly := a.WithKey(apikey.Live, tenancy.ClientsRead)
	clientsAndEvents := a.WithKey(apikey.Live, tenancy.ClientsRead, tenancy.EventsRead)
	events := []string{"events:read", "jobs:read"}
	for _, tc := range []struct {
		name     string
		key      *apitest.Org
		query    string
		status   int
		required []string // of a 403
		clients  int      // client.created listed, of a 200
	}{
		{"a readable type", clientsOnly, "?type=client.created", 200, nil, 1},
		{"no filter", clientsOnly, "", 200, nil, 1},
		{"an unreadable type", clientsOnly, "?type=event.created", 403, events, 0},
		{"readable then unreadable", clientsOnly, "?type=client.created,event.updated", 403, events, 0},
		{"unreadable then readable", clientsOnly, "?type=event.deleted,client.created", 403, events, 0},
		{"a pick list's type", clientsOnly, "?type=pick_list.created", 403, []string{"pick_lists:read", "events:read", "jobs:read"}, 0},
		{"the first in the feed's order of object types is named", clientsOnly, "?type=quote.approved,event.created", 403, events, 0},
		{"every type readable", clientsAndEvents, "?type=event.created,client.created", 200, nil, 1},
		{"a wildcard is no change type", clientsOnly, "?type=*", 422, nil, 0},
		{"empty elements name nothing", clientsOnly, "?type=client.created,,%20,", 200, nil, 1},
		{"an unreadable type after empty elements", clientsOnly, "?type=,event.created", 403, events, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.key.Get(feedPath + tc.query)
			if r.Status != tc.status {
				t.Fatalf("GET %s: %d %s, want %d", tc.query, r.Status, r.Body, tc.status)
			}
			switch tc.status {
			case 403:
				checkRequired(t, r, tc.required)
			case 200:
				if n := countOf(r.List(), "client.created"); n != tc.clients {
					t.Errorf("GET %s lists %d client.created, want %d: %s", tc.query, n, tc.clients, r.Body)
				}
			}
		})
	}
}

// checkRequired: r is 403 insufficient_scope with details.required want.
func checkRequired(t *testing.T, r *apitest.Response, want []string) {
	t.Helper()
	if r.ErrorCode() != "insufficient_scope" {
		t.Fatalf("error %q, want insufficient_scope: %s", r.ErrorCode(), r.Body)
	}
	var got []string
	raw, _ := r.ErrorDetails()["required"].([]any)
	for _, s := range raw {
		got = append(got, s.(string))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("required %v, want %v", got, want)
	}
}

// countOf counts the changes of type typ.
func countOf(cs []map[string]any, typ string) int {
	n := 0
	for _, c := range cs {
		if c["type"] == typ {
			n++
		}
	}
	return n
}
