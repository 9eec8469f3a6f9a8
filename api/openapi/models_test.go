package openapi_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	eventsapi "github.com/eventapi/eventapi/api/events"

	"github.com/eventapi/eventapi/api/planning"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/api/storage/clients"
	"github.com/eventapi/eventapi/api/storage/crew"
	"github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/api/storage/equipment"
	"github.com/eventapi/eventapi/api/storage/events"
	"github.com/eventapi/eventapi/api/storage/invoices"
	"github.com/eventapi/eventapi/api/storage/picklists"
	"github.com/eventapi/eventapi/api/storage/quotes"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/api/storage/reservations"
	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/api/storage/truckload"
	"github.com/eventapi/eventapi/api/storage/vehicles"
	"github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/errs"
)

// TestSchemasMatchTheModels compares each documented object with the Go type
// the handlers encode: the same JSON fields, and a field is required in the
// document exactly when the code always writes it (no omitempty/omitzero).
func TestSchemasMatchTheModels(t *testing.T) {
	if fields, _ := jsonFields(reflect.TypeOf(equipment.WithCategory{})); !slices.Contains(fields, "category") {
		t.Fatal("equipment.WithCategory no longer adds category")
	}
	if fields, _ := jsonFields(reflect.TypeOf(eventsapi.WithReservations{})); !slices.Contains(fields, "equipment_reservations") {
		t.Fatal("eventsapi.WithReservations no longer adds equipment_reservations")
	}
	d := loadSchemas(t)
	for name, model := range map[string]any{
		"Health":                    server.Health{},
		"Event":                     events.Event{},
		"Client":                    clients.Client{},
		"CrewMember":                crew.Member{},
		"Equipment":                 equipment.Equipment{},
		"Category":                  equipment.Category{},
		"CategoryRef":               equipment.CategoryRef{},
		"Vehicle":                   vehicles.Vehicle{},
		"Reservation":               reservations.Reservation{},
		"OverbookDetails":           reservations.OverbookDetails{},
		"OverbookWarning":           reservations.Warning{},
		"LoadWarning":               reservations.Warning{},
		"LoadTotals":                truckload.Totals{},
		"VehicleLoad":               planning.Load{},
		"Availability":              planning.Availability{},
		"AvailabilityInterval":      stock.Interval{},
		"Quote":                     quotes.Quote{},
		"Invoice":                   invoices.Invoice{},
		"LineItem":                  documents.Line{},
		"PickList":                  picklists.PickList{},
		"PickListItem":              picklists.Item{},
		"TransitionDetails":         picklists.TransitionDetails{},
		"EventRef":                  related.Event{},
		"ClientRef":                 related.Client{},
		"EquipmentRef":              related.Equipment{},
		"VehicleRef":                related.Vehicle{},
		"WebhookEndpoint":           webhooks.Endpoint{},
		"WebhookEndpointWithSecret": webhooks.CreatedEndpoint{},
		"Pagination":                rest.Pagination{},
		"FeedPagination":            rest.Pagination{}, // api/changes writes the same type
		"ValidationDetails":         errs.ValidationDetails{},
	} {
		t.Run(name, func(t *testing.T) {
			s, ok := d[name]
			if !ok {
				t.Fatalf("no schema %s", name)
			}
			fields, required := jsonFields(reflect.TypeOf(model))
			if name == "Equipment" {
				// equipment.WithCategory adds category for expand=category.
				fields = append(fields, "category")
			}
			if name == "Event" {
				// eventsapi.WithReservations adds equipment_reservations for
				// expand=equipment_reservations.
				fields = append(fields, "equipment_reservations")
			}
			var documented []string
			for p := range s.Properties {
				documented = append(documented, p)
			}
			if got, want := sorted(documented), sorted(fields); !slices.Equal(got, want) {
				t.Errorf("properties %v, the code writes %v", got, want)
			}
			if got, want := sorted(s.Required), sorted(required); !slices.Equal(got, want) {
				t.Errorf("required %v, the code always writes %v", got, want)
			}
		})
	}
}

// jsonFields returns the JSON names encoding/json writes for t, and those it
// always writes.
func jsonFields(t reflect.Type) (all, always []string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			a, b := jsonFields(f.Type)
			all, always = append(all, a...), append(always, b...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		all = append(all, name)
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			always = append(always, name)
		}
	}
	return all, always
}
