package jsonplan

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zones of TestPlanTimes, wherever the test runs

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage/clients"
	"github.com/eventapi/eventapi/api/storage/equipment"
	"github.com/eventapi/eventapi/api/storage/events"
	"github.com/eventapi/eventapi/api/storage/picklists"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/api/storage/vehicles"
	"github.com/eventapi/eventapi/platform/money"
)

// awkward are strings a JSON encoder can get wrong: HTML-safe escapes,
// controls, quotes, JSONP's line separators, invalid UTF-8 and multibyte
// text.
var awkward = []string{
	"", "plain", `<script>alert("x")</script> & 'y'`, "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f",
	`back\slash "quoted"`, "line\u2028sep\u2029para", "bad \xff\xfe utf-8 \xc3", "Bühne · Licht 🎛 ½",
	"truncated \xe2\x80", "\u2028", strings.Repeat("long text ", 40),
}

// planned encodes v by its plan, as rest.Encode does (an addressable copy
// of v, whose memory the plan reads), failing when its type has none.
func planned(t testing.TB, v any) ([]byte, error) {
	t.Helper()
	typ := reflect.TypeOf(v)
	n := Of(typ)
	if n == nil {
		t.Fatalf("%T has no encoding plan", v)
	}
	p := reflect.New(typ)
	p.Elem().Set(reflect.ValueOf(v))
	return n.Append(nil, p.UnsafePointer())
}

// sameAsEncodingJSON fails t unless v's plan writes what encoding/json
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

// TestPlanMatchesEncodingJSON: a record and a probe of every kind a plan
// writes render by their plans as encoding/json renders them (the manifest
// and the envelopes: api/rest's TestEncodePlansMatchEncodingJSON).
func TestPlanMatchesEncodingJSON(t *testing.T) {
	tests := []struct {
		name string
		v    any
	}{
		{"equipment", related.Equipment{Name: "Fixture", DailyRate: new(money.Amount(-1))}},
		{"planned probe", planProbe{
			S: awkward[2], SP: &awkward[6], I: -1 << 62, I64: math.MinInt64, I32: math.MaxInt32, F: 1e-7,
			Named: "named", Amount: 12345, Times: []time.Time{{}, time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("", -59*60))},
			IDs: []uuid.UUID{uuid.Max}, Nested: &planInner{Name: awkward[3]}, Inners: []planInner{{}, {Name: "b"}},
			FNeg: math.Copysign(0, -1), FZero: math.Copysign(0, -1), Empty: []string{},
		}},
		{"zero probe", planProbe{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { sameAsEncodingJSON(t, tt.v) })
	}
}

type planInner struct {
	Name string `json:"name"`
}

type named string

// planProbe holds every kind a plan encodes, with the omit options it
// decides itself.
type planProbe struct {
	S       string        `json:"s"`
	SP      *string       `json:"sp"`
	I       int           `json:"i"`
	I64     int64         `json:"i64"`
	I32     int32         `json:"i32,omitempty"`
	F       float64       `json:"f"`
	FNeg    float64       `json:"f_neg,omitempty"` // -0 is empty
	FZero   float64       `json:"f_zero,omitzero"` // -0 is zero too
	Named   named         `json:"named"`
	Amount  money.Amount  `json:"amount"`
	Times   []time.Time   `json:"times"`
	IDs     []uuid.UUID   `json:"ids"`
	Nested  *planInner    `json:"nested"`
	Inners  []planInner   `json:"inners"`
	Empty   []string      `json:"empty,omitzero"` // empty, not nil: kept
	Gone    []string      `json:"gone,omitempty"` // nil: left out
	OmitS   string        `json:"omit_s,omitempty"`
	OmitB   bool          `json:"omit_b,omitzero"`
	OmitP   *money.Amount `json:"omit_p,omitempty"`
	NoTag   string
	Ignored string `json:"-"`
	hidden  string //lint:ignore U1000 unexported: never encoded, which the plan must match
}

// TestPlanErrors: a value encoding/json refuses (a float that is not a
// number, a time out of RFC 3339's range) is refused by its plan too.
func TestPlanErrors(t *testing.T) {
	for _, v := range []any{
		planProbe{F: math.NaN()}, planProbe{F: math.Inf(-1)},
		planProbe{Times: []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}},
		planProbe{Times: []time.Time{time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}},
	} {
		_, want := json.Marshal(v)
		_, err := planned(t, v)
		if want == nil || err == nil || err.Error() != want.Error() {
			t.Errorf("%+v: error %v, encoding/json's %v", v, err, want)
		}
	}
}

// TestPlanFloats: floats as encoding/json writes them, the short decimals
// the plan writes itself and strconv's cases around them.
func TestPlanFloats(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	fs := []float64{0, math.Copysign(0, -1), 0.01, 0.009999999999999998, 0.005, 1e-6, 1e-7, 1e20, 1e21, 999999999999.99,
		1e12, 1e12 - 0.01, 0.1 + 0.2, 1.0 / 3, 2.675, 1.005, 0.07, 30.5, -2.5, 5e-324, math.MaxFloat64, 123456789.125}
	for range 200000 {
		scale := math.Pow10(r.IntN(4))
		f := float64(r.Int64N(2e13)-1e13) / scale
		fs = append(fs, f, math.Nextafter(f, math.Inf(1)), f*r.Float64())
	}
	for range 20000 {
		fs = append(fs, math.Float64frombits(r.Uint64()))
	}
	for _, f := range fs {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendFloat(nil, f)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%v (%#x): %s (%v), encoding/json %s", f, math.Float64bits(f), got, err, want)
		}
	}
}

// TestPlanTimes: times as encoding/json writes them (MarshalJSON), the
// ones the plan formats itself and time's cases around them: every day of
// leap and century years, the ends of the years 0 to 9999 and beyond, zones
// of seconds, of almost a day and of a day, nanoseconds.
func TestPlanTimes(t *testing.T) {
	zones := []*time.Location{time.UTC, time.Local, time.FixedZone("", 0), time.FixedZone("", 19*60+32),
		time.FixedZone("", -(23*3600 + 59*60)), time.FixedZone("", 23*3600+59*60+59), time.FixedZone("", 86400),
		time.FixedZone("", -86400), time.FixedZone("", 5*3600+45*60), time.FixedZone("", -30)}
	for _, name := range []string{"America/New_York", "Europe/Amsterdam", "Asia/Kathmandu", "Australia/Lord_Howe"} {
		if loc, err := time.LoadLocation(name); err == nil {
			zones = append(zones, loc)
		}
	}
	var ts []time.Time
	for _, year := range []int{-1, 0, 1, 4, 100, 1582, 1900, 1969, 1970, 2000, 2024, 2100, 9999, 10000} {
		for day := range 367 {
			ts = append(ts, time.Date(year, 1, 1+day, 0, 0, 0, 0, time.UTC))
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		ts = append(ts, time.Unix(r.Int64N(400_000_000_000)-62_200_000_000, r.Int64N(1e9)))
	}
	edges := []time.Time{time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(0, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), {}}
	for _, at := range append(ts, edges...) {
		for _, zone := range zones {
			for _, nsec := range []int{0, 1, 100, 120000000, 999999999, at.Nanosecond()} {
				v := time.Date(at.Year(), at.Month(), at.Day(), at.Hour(), at.Minute(), at.Second(), nsec, time.UTC).In(zone)
				want, werr := v.MarshalJSON()
				got, err := appendTime(nil, v)
				if (werr == nil) != (err == nil) || werr == nil && !bytes.Equal(got, want) {
					t.Fatalf("%v: %s (%v), MarshalJSON %s (%v)", v, got, err, want, werr)
				}
			}
		}
	}
}

// TestPlanStrings: strings as encoding/json writes them, every byte alone
// and in random text.
func TestPlanStrings(t *testing.T) {
	ss := append([]string{}, awkward...)
	for c := range 256 {
		ss = append(ss, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"b")
	}
	for c := rune(0x80); c < 0x3000; c++ {
		ss = append(ss, string(c)+"x")
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = byte(r.Uint32())
			if r.IntN(2) == 0 {
				b[i] &= 0x7f
			}
		}
		ss = append(ss, string(b))
	}
	for _, s := range ss {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: %s, encoding/json %s", s, got, want)
		}
	}
}

// TestPlanRandomRecords: the records of several resources, filled at
// random (nil and empty, awkward strings, extreme numbers, zones and
// nanoseconds), render by their plans as encoding/json renders them. A
// field added to a model takes part without a change here. (The envelopes
// around them: api/rest's TestEncodePlansMatchEncodingJSON.)
func TestPlanRandomRecords(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	types := []reflect.Type{
		reflect.TypeFor[*picklists.PickList](), reflect.TypeFor[[]picklists.PickList](),
		reflect.TypeFor[*picklists.Item](), reflect.TypeFor[related.Equipment](), reflect.TypeFor[related.Event](),
		reflect.TypeFor[related.Client](), reflect.TypeFor[related.Vehicle](), reflect.TypeFor[planProbe](),
	}
	// other resources' records take part when they have a plan
	for _, typ := range []reflect.Type{
		reflect.TypeFor[[]clients.Client](), reflect.TypeFor[[]equipment.Equipment](),
		reflect.TypeFor[[]events.Event](), reflect.TypeFor[[]vehicles.Vehicle](),
	} {
		if Of(typ) != nil {
			types = append(types, typ)
		}
	}
	for _, typ := range types {
		for range 300 {
			v := reflect.New(typ).Elem()
			fill(r, v, 0)
			sameAsEncodingJSON(t, v.Interface())
		}
	}
}

// fill sets v, and what it points to, to random values.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	switch v.Type() {
	case uuidType:
		var u uuid.UUID
		for i := range u {
			u[i] = byte(r.Uint32())
		}
		v.Set(reflect.ValueOf(u))
		return
	case timeType:
		zones := []*time.Location{time.UTC, time.Local, time.FixedZone("", -(9*3600 + 30*60)), time.FixedZone("X", 14*3600)}
		at := time.Date(r.IntN(10000), time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60),
			[]int{0, 1, 120000000, r.IntN(1e9)}[r.IntN(4)], zones[r.IntN(len(zones))])
		if r.IntN(8) == 0 {
			at = time.Time{}
		}
		v.Set(reflect.ValueOf(at))
		return
	case moneyType:
		v.SetInt([]int64{0, 1, -1, 99, 100, int64(money.Max), math.MinInt64, math.MaxInt64, r.Int64N(1e6)}[r.IntN(9)])
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(awkward[r.IntN(len(awkward))])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt([]int64{0, 1, -1, math.MaxInt32, math.MinInt32, r.Int64N(1000)}[r.IntN(6)])
	case reflect.Float64:
		v.SetFloat([]float64{0, math.Copysign(0, -1), 0.5, 12.25, 1e21, 1e-7, 1.0 / 3, r.Float64() * 1e6, float64(r.IntN(100)) / 10}[r.IntN(9)])
	case reflect.Pointer:
		if depth < 6 && r.IntN(4) != 0 {
			p := reflect.New(v.Type().Elem())
			fill(r, p.Elem(), depth+1)
			v.Set(p)
		}
	case reflect.Slice:
		switch n := r.IntN(4); {
		case n == 0 || depth >= 6:
		case n == 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			s := reflect.MakeSlice(v.Type(), n, n)
			for i := range n {
				fill(r, s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				fill(r, f, depth+1)
			}
		}
	}
}

// TestPlanOf: a pick list's types have plans; a type whose encoding
// depends on what a plan does not follow has none (goccy encodes it).
func TestPlanOf(t *testing.T) {
	type recursive struct {
		Next *recursive `json:"next"`
	}
	type embedded struct {
		planInner
	}
	type quoted struct {
		N int `json:"n,string"`
	}
	type escapedKey struct {
		N int `json:"a<b"`
	}
	type duplicate struct {
		A int
		B int `json:"A"`
	}
	type zeroTime struct {
		At time.Time `json:"at,omitzero"`
	}
	type marshals struct {
		Raw json.RawMessage `json:"raw"`
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[*picklists.PickList](), reflect.TypeFor[[]picklists.PickList](),
		reflect.TypeFor[planProbe](), reflect.TypeFor[[]string](),
	} {
		if Of(typ) == nil {
			t.Errorf("%v: no plan", typ)
		}
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[map[string]any](), reflect.TypeFor[any](), reflect.TypeFor[recursive](),
		reflect.TypeFor[embedded](), reflect.TypeFor[quoted](), reflect.TypeFor[escapedKey](),
		reflect.TypeFor[duplicate](), reflect.TypeFor[zeroTime](), reflect.TypeFor[marshals](),
		reflect.TypeFor[json.Number](), reflect.TypeFor[[]byte](), reflect.TypeFor[float32](),
		nil,
	} {
		if Of(typ) != nil {
			t.Errorf("%v: planned", typ)
		}
	}
}
