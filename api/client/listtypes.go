package client

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"reflect"
)

// listRecordTypes names, by the last segment of a list's path, the SDK type
// of the records it pages: All refuses to decode them into another. The
// records carry no field naming their type, so the path the list method
// asks for is what tells them apart. A list endpoint added to the API
// belongs here too (TestEveryListHasItsRecordType holds the table to the
// generated methods).
var listRecordTypes = map[string]reflect.Type{
	"availability":           reflect.TypeFor[Availability](),
	"changes":                reflect.TypeFor[Change](),
	"clients":                reflect.TypeFor[ClientRecord](),
	"crew_members":           reflect.TypeFor[CrewMember](),
	"deliveries":             reflect.TypeFor[WebhookDelivery](), // webhook_endpoints/{id}/deliveries
	"equipment":              reflect.TypeFor[Equipment](),
	"equipment_categories":   reflect.TypeFor[Category](),
	"equipment_reservations": reflect.TypeFor[Reservation](),
	"events":                 reflect.TypeFor[Event](),
	"invoices":               reflect.TypeFor[Invoice](),
	"jobs":                   reflect.TypeFor[Event](),
	"pick_lists":             reflect.TypeFor[PickList](),
	"quotes":                 reflect.TypeFor[Quote](),
	"request_logs":           reflect.TypeFor[RequestLog](),
	"vehicles":               reflect.TypeFor[Vehicle](),
	"webhook_endpoints":      reflect.TypeFor[WebhookEndpoint](),
}

// sdkPackage is this package's import path: the types All checks are its.
var sdkPackage = reflect.TypeFor[Event]().PkgPath()

// listRecordType is the SDK type of the records of the list at urlPath
// (the server's base path and all), if it is a list this SDK knows.
func listRecordType(urlPath string) (reflect.Type, bool) {
	t, ok := listRecordTypes[path.Base(urlPath)]
	return t, ok
}

// checkRecordType is a request editor that stops a list request, before it
// is sent, when T (or what T points to) is a type of this package other
// than the type of the records the list pages: All[Vehicle] over
// ListEquipment decoded equipment into vehicles of zero values without an
// error. It is nil for a T of another package (json.RawMessage, a map, a
// caller's struct), whose decoding the caller chose, and a list at a path
// this SDK does not know is let through.
func checkRecordType[T any]() RequestEditorFn {
	t := reflect.TypeFor[T]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.PkgPath() != sdkPackage {
		return nil
	}
	return func(_ context.Context, req *http.Request) error {
		want, ok := listRecordType(req.URL.Path)
		if !ok || want == t {
			return nil
		}
		return fmt.Errorf("eventapi: %s lists %s records, which do not decode into %s: All's T must be %s",
			req.URL.Path, want.Name(), t.Name(), want.Name())
	}
}
