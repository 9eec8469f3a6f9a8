package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/client"
	"github.com/eventapi/eventapi/api/storage/demo"
	"github.com/eventapi/eventapi/tenancy"
)

// TestEveryListHasItsRecordType: for every generated List method, the
// path it asks for names, in All's table, the type of the records its
// response's data holds, so a list added to the API without its entry (All
// would let any T through) or with the wrong one fails here. No request is
// sent: an editor reads the path and stops it.
func TestEveryListHasItsRecordType(t *testing.T) {
	api, err := client.New("http://eventapi.invalid/api/v2", "key")
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	raw := reflect.ValueOf(api.Raw)
	typed := reflect.TypeFor[*client.ClientWithResponses]()
	lists := 0
	for i := range raw.NumMethod() {
		name := raw.Type().Method(i).Name
		if !strings.HasPrefix(name, "List") {
			continue
		}
		lists++
		m := raw.Method(i)
		var path string
		editor := client.RequestEditorFn(func(_ context.Context, req *http.Request) error {
			path = req.URL.Path
			return stop
		})
		args := []reflect.Value{reflect.ValueOf(context.Background())}
		for a := 1; a < m.Type().NumIn()-1; a++ { // path arguments and params: zero
			args = append(args, reflect.Zero(m.Type().In(a)))
		}
		out := m.Call(append(args, reflect.ValueOf(editor)))
		if err, _ := out[1].Interface().(error); !errors.Is(err, stop) {
			t.Errorf("%s: %v, want the editor to stop it", name, err)
			continue
		}
		withResponse, ok := typed.MethodByName(name + "WithResponse")
		if !ok {
			t.Errorf("%s has no %sWithResponse", name, name)
			continue
		}
		body, ok := withResponse.Type.Out(0).Elem().FieldByName("JSON200")
		if !ok {
			t.Errorf("%s's response has no JSON200", name)
			continue
		}
		data, ok := body.Type.Elem().FieldByName("Data")
		if !ok || data.Type.Kind() != reflect.Slice {
			t.Errorf("%s's JSON200 has no data list", name)
			continue
		}
		got, ok := client.ListRecordType(path)
		if want := data.Type.Elem(); !ok || got != want {
			t.Errorf("%s (%s): All's table says %v (known %v), its data holds %v", name, path, got, ok, want)
		}
	}
	if lists < 16 {
		t.Fatalf("%d List methods, want at least the 16 of this test's writing", lists)
	}
}

// counting is a transport that counts the requests it sends.
type counting struct {
	next http.RoundTripper
	sent *atomic.Int64
}

func (c counting) RoundTrip(req *http.Request) (*http.Response, error) {
	c.sent.Add(1)
	return c.next.RoundTrip(req)
}

// collect runs seq to its end: how many records came before the error
// that ended it, if any.
func collect[T any](seq iter.Seq2[T, error]) (n int, err error) {
	for _, err := range seq {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// TestAllRefusesAnotherRecordType: All over a list of the demo seed
// yields its records into the SDK's type of them (or a pointer to it) and
// into a type of another package as the caller chose; a T of this package
// that is not the list's record type is an error before any request, where
// All[Vehicle] over ListEquipment decoded equipment into zero-value
// vehicles without one (found by a review).
func TestAllRefusesAnotherRecordType(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("All's record types")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := demo.Seed(ctx, env.Svc.DB, tenancy.Tenant{Org: org.OrgID()}); err != nil {
		t.Fatal(err)
	}
	var sent atomic.Int64
	api, err := client.New(env.Listen(t)+"/api/v2", org.Key,
		client.HTTPClient(&http.Client{Transport: counting{next: contractClient(t).Transport, sent: &sent}}))
	if err != nil {
		t.Fatal(err)
	}
	deliveries := client.Bind(api.Raw.ListWebhookDeliveries, uuid.New())
	for _, tc := range []struct {
		name    string
		all     func() (int, error)
		wantErr string // "": records, and no error
	}{
		{"vehicles into Vehicle", func() (int, error) { return collect(client.All[client.Vehicle](ctx, api.Raw.ListVehicles, nil)) }, ""},
		{"vehicles into *Vehicle", func() (int, error) { return collect(client.All[*client.Vehicle](ctx, api.Raw.ListVehicles, nil)) }, ""},
		{"equipment into Equipment", func() (int, error) { return collect(client.All[client.Equipment](ctx, api.Raw.ListEquipment, nil)) }, ""},
		{"jobs into Event", func() (int, error) { return collect(client.All[client.Event](ctx, api.Raw.ListJobs, nil)) }, ""},
		{"equipment into json.RawMessage", func() (int, error) {
			return collect(client.All[json.RawMessage](ctx, api.Raw.ListEquipment, nil))
		}, ""},
		{"vehicles into a map", func() (int, error) { return collect(client.All[map[string]any](ctx, api.Raw.ListVehicles, nil)) }, ""},
		{"equipment into Vehicle", func() (int, error) { return collect(client.All[client.Vehicle](ctx, api.Raw.ListEquipment, nil)) },
			"/api/v2/equipment lists Equipment records, which do not decode into Vehicle"},
		{"equipment into *Vehicle", func() (int, error) { return collect(client.All[*client.Vehicle](ctx, api.Raw.ListEquipment, nil)) },
			"lists Equipment records, which do not decode into Vehicle"},
		{"vehicles into Equipment", func() (int, error) { return collect(client.All[client.Equipment](ctx, api.Raw.ListVehicles, nil)) },
			"/api/v2/vehicles lists Vehicle records"},
		{"events into Reservation", func() (int, error) { return collect(client.All[client.Reservation](ctx, api.Raw.ListEvents, nil)) },
			"lists Event records, which do not decode into Reservation"},
		{"pick lists into PickListItem", func() (int, error) {
			return collect(client.All[client.PickListItem](ctx, api.Raw.ListPickLists, nil))
		}, "lists PickList records, which do not decode into PickListItem"},
		{"an endpoint's deliveries into Vehicle", func() (int, error) { return collect(client.All[client.Vehicle](ctx, deliveries, nil)) },
			"lists WebhookDelivery records"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := sent.Load()
			n, err := tc.all()
			if tc.wantErr == "" {
				if err != nil || n == 0 {
					t.Fatalf("%d records, err %v; want the seed's records", n, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
			}
			if n != 0 || sent.Load() != before {
				t.Fatalf("%d records and %d requests before the error, want none", n, sent.Load()-before)
			}
		})
	}
}
