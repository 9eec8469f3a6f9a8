package related

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/money"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// oldOne and oldEquipment are the previous encoding, kept as the reference:
// One.MarshalJSON returned json.Marshal(value), nested One included.
type oldOne[T any] struct {
	requested bool
	value     *T
}

func (o oldOne[T]) IsZero() bool                 { return !o.requested }
func (o oldOne[T]) MarshalJSON() ([]byte, error) { return json.Marshal(o.value) }

type oldEquipment struct {
	ID           uuid.UUID        `json:"id"`
	Name         string           `json:"name"`
	Brand        *string          `json:"brand"`
	CategoryID   *uuid.UUID       `json:"category_id"`
	CaseLengthIn *float64         `json:"case_length_in"`
	CaseWidthIn  *float64         `json:"case_width_in"`
	CaseHeightIn *float64         `json:"case_height_in"`
	WeightLbs    *float64         `json:"weight_lbs"`
	DailyRate    *money.Amount    `json:"daily_rate"`
	Category     oldOne[Category] `json:"category,omitzero"`
}

func toOld(e *Equipment) *oldEquipment {
	if e == nil {
		return nil
	}
	return &oldEquipment{ID: e.ID, Name: e.Name, Brand: e.Brand, CategoryID: e.CategoryID, CaseLengthIn: e.CaseLengthIn,
		CaseWidthIn: e.CaseWidthIn, CaseHeightIn: e.CaseHeightIn, WeightLbs: e.WeightLbs, DailyRate: e.DailyRate,
		Category: oldOne[Category](e.Category)}
}

// item and oldItem stand for a pick list item carrying the expansion.
type item struct {
	ID        uuid.UUID       `json:"id"`
	Quantity  int             `json:"quantity"`
	Equipment One[Equipment]  `json:"equipment,omitzero"`
	Notes     *string         `json:"notes"`
	Event     One[Event]      `json:"event,omitzero"`
	Client    One[Client]     `json:"client,omitzero"`
	Extra     map[string]bool `json:"extra,omitempty"`
}

type oldItem struct {
	ID        uuid.UUID            `json:"id"`
	Quantity  int                  `json:"quantity"`
	Equipment oldOne[oldEquipment] `json:"equipment,omitzero"`
	Notes     *string              `json:"notes"`
	Event     oldOne[Event]        `json:"event,omitzero"`
	Client    oldOne[Client]       `json:"client,omitzero"`
	Extra     map[string]bool      `json:"extra,omitempty"`
}

func toOldItems(items []item) []oldItem {
	out := make([]oldItem, len(items))
	for i, it := range items {
		out[i] = oldItem{ID: it.ID, Quantity: it.Quantity, Notes: it.Notes, Extra: it.Extra,
			Equipment: oldOne[oldEquipment]{requested: it.Equipment.requested, value: toOld(it.Equipment.value)},
			Event:     oldOne[Event](it.Event), Client: oldOne[Client](it.Client)}
	}
	return out
}

// TestEquipmentMirrorsReference keeps the reference in step with Equipment:
// the same JSON fields in the same order, Category last (appendJSON splices
// it in before the closing brace).
func TestEquipmentMirrorsReference(t *testing.T) {
	jsonFields := func(typ reflect.Type) []string {
		var out []string
		for f := range typ.Fields() {
			if tag := f.Tag.Get("json"); tag != "" && tag != "-" {
				out = append(out, f.Name+" "+tag)
			}
		}
		return out
	}
	got, want := jsonFields(reflect.TypeFor[Equipment]()), jsonFields(reflect.TypeFor[oldEquipment]())
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Equipment's JSON fields changed:\n%v\nreference:\n%v\nupdate oldEquipment and toOld", got, want)
	}
	if last := got[len(got)-1]; last != "Category category,omitzero" {
		t.Fatalf("Category must be Equipment's last JSON field, got %q", last)
	}
	// equipmentJSON and equipmentCategoryJSON, what Equipment encodes
	// through, have the same fields.
	fast := append(jsonFields(reflect.TypeFor[equipmentJSON]()), "Category category,omitzero")
	if !reflect.DeepEqual(fast, got) {
		t.Fatalf("equipmentJSON's fields:\n%v\nEquipment's:\n%v", fast, got)
	}
	if f := jsonFields(reflect.TypeFor[equipmentCategoryJSON]()); len(f) != 1 || f[0] != "Category category" {
		t.Fatalf("equipmentCategoryJSON's own fields: %v", f)
	}
}

// TestExpansionBytesUnchanged loads equipment and categories through the
// real expand loader (EquipmentByID, with and without categories) and checks
// that items carrying them encode to the same bytes as with the previous
// One: requested, requested but absent (null), not requested (left out),
// nested categories present, absent and null, HTML and non-ASCII text.
func TestExpansionBytesUnchanged(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(ctx, db, "json bytes", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.NewRaw(`INSERT INTO equipment_categories (organization_id, name, color) VALUES
		(?0, 'Truss <&> "Co"', '#A1B2C3'), (?0, 'Läufer ☃ audio', NULL)`, org.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.NewRaw(`INSERT INTO equipment (organization_id, name, brand, category_id, daily_rate,
		case_length_in, case_width_in, case_height_in, weight_lbs)
		SELECT ?0, 'Fixture ' || i || CASE WHEN i % 3 = 0 THEN ' <b>&amp;</b> ✓' ELSE '' END,
		       CASE WHEN i % 4 = 0 THEN NULL ELSE 'Brand "' || i || '"' END,
		       CASE WHEN i % 5 = 0 THEN NULL ELSE c.ids[1 + i % 2] END,
		       CASE WHEN i % 6 = 0 THEN NULL ELSE (i * 37 % 100000) / 100.0 END,
		       CASE WHEN i % 7 = 0 THEN NULL ELSE 24 + i / 3.0 END, 18, 12.25, 1e-3 * i + 30
		FROM generate_series(1, 40) AS s(i),
		     (SELECT array_agg(id ORDER BY name) AS ids FROM equipment_categories WHERE organization_id = ?0) AS c`,
		org.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	var ids []uuid.UUID
	if err := db.NewRaw("SELECT id FROM equipment WHERE organization_id = ? ORDER BY name", org.ID).Scan(ctx, &ids); err != nil {
		t.Fatal(err)
	}
	for _, withCategory := range []bool{true, false} {
		eq, err := EquipmentByID(ctx, db, org.ID, ids, withCategory)
		if err != nil {
			t.Fatal(err)
		}
		note := "note <x>"
		items := []item{
			{ID: uuid.New(), Quantity: 1},                                         // not requested
			{ID: uuid.New(), Quantity: 2, Equipment: Pick(eq, nil), Notes: &note}, // requested, no equipment
			{ID: uuid.New(), Quantity: 3, Equipment: Expanded[Equipment](nil), Event: Expanded[Event](nil),
				Client: Expanded(&Client{ID: uuid.New(), Name: "A & B"}), Extra: map[string]bool{"z": true, "a": false}},
		}
		for i, id := range ids {
			items = append(items, item{ID: id, Quantity: i, Equipment: Pick(eq, &id)})
		}
		// A category requested but absent renders null inside the equipment.
		items[3].Equipment.value.Category = Expanded[Category](nil)

		got, err := json.Marshal(items)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(toOldItems(items))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("withCategory=%v: bytes differ\ngot:  %s\nwant: %s", withCategory, got, want)
		}
		if withCategory && !bytes.Contains(got, []byte(`"category":{"id":`)) || !bytes.Contains(got, []byte(`\u003c`)) {
			t.Fatalf("withCategory=%v: the case is not exercised: %s", withCategory, got)
		}
		// The same through an indenting encoder (encoding/json re-formats a
		// Marshaler's output there).
		var a, b bytes.Buffer
		ea, eb := json.NewEncoder(&a), json.NewEncoder(&b)
		ea.SetIndent("", "  ")
		eb.SetIndent("", "  ")
		if err := ea.Encode(items); err != nil {
			t.Fatal(err)
		}
		if err := eb.Encode(toOldItems(items)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("withCategory=%v: indented bytes differ", withCategory)
		}
	}
}

// cpuTime is the CPU time this process has used (user + system).
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// manifestItems builds n items like the 1000-item manifest: each with its
// equipment and the equipment's category expanded.
func manifestItems(n int) []item {
	cats := make([]*Category, 12)
	for i := range cats {
		color := fmt.Sprintf("#%06X", i*1048573%16777216)
		cats[i] = &Category{ID: uuid.New(), Name: fmt.Sprintf("Category %d", i), Color: &color}
	}
	items := make([]item, n)
	for i := range items {
		brand := fmt.Sprintf("Brand %d", i%7)
		l, w, h, wt := float64(24+i%30), float64(18+i%12), float64(12+i%20), 30.5+float64(i%90)
		rate := money.Amount(2500 + i%400*100 + i%100)
		c := cats[i%12]
		notes := fmt.Sprintf("case Fixture %d", i)
		items[i] = item{ID: uuid.New(), Quantity: 1 + i%4, Notes: &notes, Equipment: Expanded(&Equipment{
			ID: uuid.New(), Name: fmt.Sprintf("Fixture %d", i), Brand: &brand, CategoryID: &c.ID, CaseLengthIn: &l,
			CaseWidthIn: &w, CaseHeightIn: &h, WeightLbs: &wt, DailyRate: &rate, Category: Expanded(c)})}
	}
	return items
}

// BenchmarkManifestJSON encodes 1000 items with equipment and category
// expanded: before is the previous One (the reference types), after the
// current one.
func BenchmarkManifestJSON(b *testing.B) {
	items := manifestItems(1000)
	old := toOldItems(items)
	for _, bc := range []struct {
		name string
		v    any
	}{{"before", old}, {"after", items}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			for b.Loop() {
				if _, err := json.Marshal(bc.v); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time per op as well: on a shared, loaded machine it varies
			// far less than ns/op (wall time).
			b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}
