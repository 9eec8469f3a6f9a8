package related_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/api/storage/storagetest"
	"github.com/eventapi/eventapi/platform/errs"
)

func ptr(id uuid.UUID) *uuid.UUID { return &id }

func TestCheck(t *testing.T) {
	f := storagetest.NewFixture(t)
	ctx := context.Background()
	mine := f.Insert(t, "clients", f.A, map[string]any{"name": "Mine"})
	theirs := f.Insert(t, "clients", f.B, map[string]any{"name": "Theirs"})
	myEvent := f.Insert(t, "events", f.A, map[string]any{"name": "Gig", "venue": "Hall",
		"start_date": time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC), "end_date": time.Date(2026, 6, 2, 8, 0, 0, 0, time.UTC)})
	tests := []struct {
		name string
		refs []related.Ref
		// bad are the fields the validation_error must name (none: no error).
		bad []string
	}{
		{"no references", nil, nil},
		{"no id given passes", []related.Ref{{Field: "client_id", Table: related.TableClients}}, nil},
		{"own records", []related.Ref{
			{Field: "client_id", Table: related.TableClients, ID: ptr(mine)},
			{Field: "event_id", Table: related.TableEvents, ID: ptr(myEvent)}}, nil},
		{"another organization's record", []related.Ref{
			{Field: "client_id", Table: related.TableClients, ID: ptr(theirs)}}, []string{"client_id"}},
		{"no such record", []related.Ref{
			{Field: "event_id", Table: related.TableEvents, ID: ptr(uuid.New())}}, []string{"event_id"}},
		{"an id of the wrong table", []related.Ref{
			{Field: "event_id", Table: related.TableEvents, ID: ptr(mine)}}, []string{"event_id"}},
		{"every bad field is named, good ones are not", []related.Ref{
			{Field: "client_id", Table: related.TableClients, ID: ptr(theirs)},
			{Field: "event_id", Table: related.TableEvents, ID: ptr(myEvent)},
			{Field: "equipment_id", Table: related.TableEquipment, ID: ptr(uuid.New())}}, []string{"client_id", "equipment_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := related.Check(ctx, f.DB, f.A, tt.refs...)
			if len(tt.bad) == 0 {
				if err != nil {
					t.Fatalf("Check: %v, want nil", err)
				}
				return
			}
			e := errs.As(err)
			if e == nil || e.Code != errs.Validation {
				t.Fatalf("Check: %v, want validation_error", err)
			}
			var named []string
			for _, fi := range e.Details.(errs.ValidationDetails).Fields {
				if fi.Issue != related.IssueNotInOrg {
					t.Errorf("issue %q on %s", fi.Issue, fi.Field)
				}
				named = append(named, fi.Field)
			}
			if !slices.Equal(named, tt.bad) {
				t.Fatalf("fields %v, want %v", named, tt.bad)
			}
		})
	}
}

// TestLoad: each loader returns the organization's records with the asked
// ids, keyed by id, and never another organization's.
func TestLoad(t *testing.T) {
	f := storagetest.NewFixture(t)
	ctx := context.Background()
	start, end := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC), time.Date(2026, 6, 2, 8, 0, 0, 0, time.UTC)
	ins := func(table string, a bool, cols map[string]any) uuid.UUID {
		org := f.B
		if a {
			org = f.A
		}
		return f.Insert(t, table, org, cols)
	}
	cat := ins("equipment_categories", true, map[string]any{"name": "Audio", "color": "#112233"})
	ids := map[string]uuid.UUID{
		"event":        ins("events", true, map[string]any{"name": "Gig", "venue": "Hall", "start_date": start, "end_date": end}),
		"their event":  ins("events", false, map[string]any{"name": "Theirs", "venue": "Hall", "start_date": start, "end_date": end}),
		"client":       ins("clients", true, map[string]any{"name": "Client"}),
		"their client": ins("clients", false, map[string]any{"name": "Theirs"}),
		"vehicle":      ins("vehicles", true, map[string]any{"name": "Van"}),
		"their van":    ins("vehicles", false, map[string]any{"name": "Theirs"}),
		"speaker":      ins("equipment", true, map[string]any{"name": "Speaker", "category_id": cat}),
		"cable":        ins("equipment", true, map[string]any{"name": "Cable"}),
		"their amp":    ins("equipment", false, map[string]any{"name": "Theirs"}),
	}
	names := func(keys ...string) []uuid.UUID {
		out := []uuid.UUID{uuid.New()} // an id of no record is left out
		for _, k := range keys {
			out = append(out, ids[k])
		}
		return out
	}
	loaded := func(got map[uuid.UUID]string) []string {
		var out []string
		for id, name := range got {
			for k, v := range ids {
				if v == id {
					out = append(out, k+"="+name)
				}
			}
		}
		slices.Sort(out)
		return out
	}
	tests := []struct {
		name string
		load func(ids []uuid.UUID) (map[uuid.UUID]string, error)
		ask  []uuid.UUID
		want []string
	}{
		{"events", func(ids []uuid.UUID) (map[uuid.UUID]string, error) {
			m, err := related.Events(ctx, f.DB, f.A, ids)
			return mapNames(m, func(e *related.Event) string { return e.Name }), err
		}, names("event", "their event"), []string{"event=Gig"}},
		{"clients", func(ids []uuid.UUID) (map[uuid.UUID]string, error) {
			m, err := related.Clients(ctx, f.DB, f.A, ids)
			return mapNames(m, func(c *related.Client) string { return c.Name }), err
		}, names("client", "their client"), []string{"client=Client"}},
		{"vehicles", func(ids []uuid.UUID) (map[uuid.UUID]string, error) {
			m, err := related.Vehicles(ctx, f.DB, f.A, ids)
			return mapNames(m, func(v *related.Vehicle) string { return v.Name }), err
		}, names("vehicle", "their van"), []string{"vehicle=Van"}},
		{"equipment without categories", func(ids []uuid.UUID) (map[uuid.UUID]string, error) {
			m, err := related.EquipmentByID(ctx, f.DB, f.A, ids, false)
			return mapNames(m, equipmentName), err
		}, names("speaker", "cable", "their amp"), []string{"cable=Cable", "speaker=Speaker"}},
		{"equipment with categories", func(ids []uuid.UUID) (map[uuid.UUID]string, error) {
			m, err := related.EquipmentByID(ctx, f.DB, f.A, ids, true)
			return mapNames(m, equipmentName), err
		}, names("speaker", "cable", "their amp"), []string{"cable=Cable/null", "speaker=Speaker/Audio"}},
		{"no ids: no query, an empty map", func(ids []uuid.UUID) (map[uuid.UUID]string, error) {
			m, err := related.Events(ctx, f.DB, f.A, nil)
			if m == nil {
				t.Error("nil map")
			}
			return mapNames(m, func(e *related.Event) string { return e.Name }), err
		}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.load(tt.ask)
			if err != nil {
				t.Fatal(err)
			}
			if l := loaded(got); !slices.Equal(l, tt.want) {
				t.Fatalf("loaded %v, want %v", l, tt.want)
			}
		})
	}
}

func mapNames[T any](m map[uuid.UUID]*T, name func(*T) string) map[uuid.UUID]string {
	out := map[uuid.UUID]string{}
	for id, v := range m {
		out[id] = name(v)
	}
	return out
}

// equipmentName is the name, with "/category" when the category expansion
// was requested ("/null" for none).
func equipmentName(e *related.Equipment) string {
	if e.Category == nil {
		return e.Name
	}
	if c := *e.Category; c != nil {
		return e.Name + "/" + c.Name
	}
	return e.Name + "/null"
}

func TestOneAndIDs(t *testing.T) {
	a, b := uuid.New(), uuid.New()
	type doc struct {
		Client related.One[related.Client] `json:"client,omitzero"`
	}
	records := map[uuid.UUID]*related.Client{a: {ID: a, Name: "A"}}
	tests := []struct {
		name string
		one  related.One[related.Client]
		want string
	}{
		{"not requested: left out", nil, `{}`},
		{"requested, no relation: null", related.Pick(records, nil), `{"client":null}`},
		{"requested, not loaded: null", related.Pick(records, &b), `{"client":null}`},
		{"requested and loaded", related.Pick(records, &a), `{"client":{"id":"` + a.String() + `","name":"A","email":null,"phone":null}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(doc{Client: tt.one})
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %s %v, want %s", got, err, tt.want)
			}
		})
	}
	items := []*uuid.UUID{&a, nil, &b, &a}
	if got := related.IDs(items, func(p **uuid.UUID) *uuid.UUID { return *p }); !slices.Equal(got, []uuid.UUID{a, b}) {
		t.Fatalf("IDs = %v, want distinct non-nil ids in order", got)
	}
}

// TestPicker: a Picker's expansions are Pick's, cells apart: each its own,
// beyond the number it was made for too.
func TestPicker(t *testing.T) {
	a, b := uuid.New(), uuid.New()
	records := map[uuid.UUID]*related.Client{a: {ID: a, Name: "A"}}
	ids := []*uuid.UUID{&a, nil, &b, &a, nil}
	p := related.NewPicker[related.Client](3)
	var got []related.One[related.Client]
	for _, id := range ids {
		got = append(got, p.Pick(records, id))
	}
	for i, id := range ids {
		if want := related.Pick(records, id); got[i] == nil || *got[i] != *want {
			t.Errorf("pick %d: %v, Pick gives %v", i, got[i], want)
		}
		for j := range i {
			if got[i] == got[j] {
				t.Errorf("picks %d and %d share a cell", j, i)
			}
		}
	}
}
