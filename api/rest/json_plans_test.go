package rest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
	"unsafe"

	gojson "github.com/goccy/go-json"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/rest/jsonplan"
	"github.com/eventapi/eventapi/api/storage/picklists"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/platform/money"
)

// awkward are strings a JSON encoder can get wrong: HTML-safe escapes,
// controls, quotes, JSONP's line separators, invalid UTF-8 and multibyte
// text (the same as api/rest/jsonplan's tests).
var awkward = []string{
	"", "plain", `<script>alert("x")</script> & 'y'`, "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f",
	`back\slash "quoted"`, "line\u2028sep\u2029para", "bad \xff\xfe utf-8 \xc3", "Bühne · Licht 🎛 ½",
	"truncated \xe2\x80", "\u2028", strings.Repeat("long text ", 40),
}

// manifest is a pick list of n items as the detail endpoint renders it
// with expand=items,equipment,category: every item's equipment, each
// equipment's category, in all three states of an expansion (absent,
// null, present), with nulls, escapes, unicode, money and float edges.
func manifest(n int) *picklists.PickList {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	at := time.Date(2026, 11, 25, 9, 30, 0, 123456789, time.UTC)
	cats := []*related.Category{
		{ID: uuid.New(), Name: "Audio", Color: new("#00ff00")},
		{ID: uuid.New(), Name: "Licht <LED> & Rigging", Color: nil},
		{ID: uuid.New(), Name: awkward[7]},
	}
	items := make([]picklists.Item, n)
	for i := range items {
		it := &items[i]
		*it = picklists.Item{
			ID: uuid.New(), PickListID: uuid.New(), Quantity: 1 + i%4 - 2*(i%7/6), Stage: picklists.Stages[i%len(picklists.Stages)],
			CreatedAt: at.Add(time.Duration(i) * 1001 * time.Microsecond), UpdatedAt: at.Add(time.Duration(i) * time.Hour).In(time.FixedZone("", 5*3600+30*60)),
			Demo: i%2 == 0,
		}
		if i%3 != 0 {
			it.Notes = new(awkward[i%len(awkward)] + " case " + strconv.Itoa(i))
		}
		if i%5 == 0 {
			it.CustomDescription = new(awkward[(i+3)%len(awkward)])
			it.IsContainer, it.IsPackage = new(i%2 == 0), new(true)
			it.ContainerID, it.ParentItemID, it.WarehouseID = new(uuid.New()), new(uuid.Nil), new(uuid.New())
		}
		switch i % 4 {
		case 1:
			it.SerialNumbers = []string{}
		case 2:
			it.SerialNumbers = []string{"SN-" + strconv.Itoa(i), awkward[2], ""}
		}
		if i%11 == 10 {
			continue // no equipment: a custom line
		}
		it.EquipmentID = new(uuid.New())
		if i%13 == 12 {
			it.Equipment = related.Expanded[related.Equipment](nil) // deleted meanwhile: null
			continue
		}
		eq := &related.Equipment{ID: *it.EquipmentID, Name: "Fixture " + awkward[i%len(awkward)]}
		if i%6 != 0 {
			eq.Brand = new("Brand " + strconv.Itoa(i%7))
			eq.CaseLengthIn, eq.CaseWidthIn = new(float64(24+i%30)), new(18.5+float64(i%12)/10)
			eq.CaseHeightIn = new([]float64{0, math.Copysign(0, -1), 0.1, 1.0 / 3, 1e21, 1e20, 1e-7, 123456789.125, 0.07, -2.5, 999999999999.99}[i%11])
			eq.WeightLbs = new(30.5 + float64(i%90) + r.Float64())
			eq.DailyRate = new(money.Amount([]int64{0, 5, 2550, -1999, int64(money.Max), 100}[i%6]))
		}
		switch i % 3 {
		case 0:
			eq.CategoryID = &cats[i%len(cats)].ID
			eq.Category = related.Expanded(cats[i%len(cats)])
		case 1:
			eq.Category = related.Expanded[related.Category](nil)
		}
		it.Equipment = related.Expanded(eq)
	}
	return &picklists.PickList{
		ID: uuid.New(), Name: "Manifest <main stage> \"A\"", Status: picklists.StatusInProgress,
		EventID: new(uuid.New()), Notes: new(awkward[6]), CreatedAt: at, UpdatedAt: at.Add(time.Nanosecond),
		Items: &items,
		Event: related.Expanded(&related.Event{ID: uuid.New(), Name: "Festival", Status: "confirmed",
			StartDate: at, EndDate: at.AddDate(0, 0, 3), Venue: awkward[8]}),
	}
}

// planned encodes v by its plan, failing when its type has none.
func planned(t testing.TB, v any) ([]byte, error) {
	t.Helper()
	if jsonplan.Of(reflect.TypeOf(v)) == nil {
		t.Fatalf("%T has no encoding plan", v)
	}
	return Encode(v)
}

// sameAsEncodingJSON fails t unless Encode writes what encoding/json
// writes for v, errors included.
func sameAsEncodingJSON(t *testing.T, v any) {
	t.Helper()
	std, err := json.Marshal(v)
	got, gerr := planned(t, v)
	if (err == nil) != (gerr == nil) {
		t.Fatalf("%T: error %v, encoding/json's %v", v, gerr, err)
	}
	if !bytes.Equal(got, std) {
		i := 0
		for i < min(len(got), len(std)) && got[i] == std[i] {
			i++
		}
		t.Fatalf("%T differs from encoding/json at byte %d of %d:\n got  …%s\n want …%s", v, i, len(std),
			got[max(0, i-80):min(len(got), i+80)], std[max(0, i-80):min(len(std), i+80)])
	}
}

// TestEncodePlansMatchEncodingJSON: the manifest, pages and single records of
// pick lists render in their envelopes by their plans as encoding/json
// renders them (a probe of every kind a plan writes, and records filled at
// random: api/rest/jsonplan's tests).
func TestEncodePlansMatchEncodingJSON(t *testing.T) {
	m := manifest(1000)
	next := "cursor/with+<html>&\u2028"
	empty := &picklists.PickList{ID: uuid.New(), Name: "none", Items: new([]picklists.Item{})}
	nilItems := &picklists.PickList{ID: uuid.New(), Items: new([]picklists.Item(nil))}
	tests := []struct {
		name string
		v    any
	}{
		{"manifest", Data[*picklists.PickList]{Data: m}},
		{"manifest value", *m},
		{"manifest pointer", &Data[*picklists.PickList]{Data: m}},
		{"null record", Data[*picklists.PickList]{}},
		{"no items", Data[*picklists.PickList]{Data: empty}},
		{"null items", Data[*picklists.PickList]{Data: nilItems}},
		{"without items", Data[picklists.PickList]{Data: picklists.PickList{Name: "x", Event: related.Expanded[related.Event](nil)}}},
		{"page", List[picklists.PickList]{Data: []picklists.PickList{*m, *empty, {}}, Pagination: Pagination{NextCursor: &next, HasMore: true}}},
		{"empty page", List[picklists.PickList]{Data: []picklists.PickList{}}},
		{"null page", List[picklists.PickList]{}},
		{"items", (*m.Items)[:50]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { sameAsEncodingJSON(t, tt.v) })
	}
}

// TestEnvelopePlans: the envelopes of a record and of a page have plans;
// the envelope of a write and the error envelope, whose warnings and
// details are interfaces, have none (goccy encodes them).
func TestEnvelopePlans(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[Data[*picklists.PickList]](), reflect.TypeFor[List[picklists.PickList]](),
	} {
		if jsonplan.Of(typ) == nil {
			t.Errorf("%v: no plan", typ)
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[Written[*picklists.PickList]](), reflect.TypeFor[ErrorBody]()} {
		if jsonplan.Of(typ) != nil {
			t.Errorf("%v: planned", typ)
		}
	}
}

// BenchmarkManifestEncoding: a 1000-item manifest's body written by goccy
// (rest.Encode before plans), by Encode (a plan, then a copy at the body's
// size, as Fiber's JSONEncoder) and by its plan into a reused buffer (what
// respond does).
func BenchmarkManifestEncoding(b *testing.B) {
	v := Data[*picklists.PickList]{Data: manifest(1000)}
	n := jsonplan.Of(reflect.TypeOf(v))
	b.Run("goccy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := gojson.Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Encode(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plan", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			var err error
			if buf, err = n.Append(buf[:0], unsafe.Pointer(&v)); err != nil {
				b.Fatal(err)
			}
		}
		b.SetBytes(int64(len(buf)))
	})
}

func ExampleEncode() {
	type named struct {
		Name string `json:"name"`
	}
	b, err := Encode(Data[named]{Data: named{Name: "<Bühne>\u2028"}})
	fmt.Println(string(b), err, utf8.Valid(b))
	// Output: {"data":{"name":"\u003cBühne\u003e\u2028"}} <nil> true
}
