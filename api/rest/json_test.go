package rest

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/money"
)

type jsonInner struct {
	Name string `json:"name"`
}

type jsonProbe struct {
	Text    string            `json:"text"`
	Ptr     *string           `json:"ptr"`
	Float   float64           `json:"float"`
	Floats  []float64         `json:"floats"`
	At      time.Time         `json:"at"`
	Zero    time.Time         `json:"zero,omitzero"`
	ID      uuid.UUID         `json:"id"`
	IDs     []uuid.UUID       `json:"ids"`
	Amount  *money.Amount     `json:"amount"`
	Map     map[string]any    `json:"map"`
	Raw     json.RawMessage   `json:"raw"`
	Empty   []string          `json:"empty"`
	Nil     []string          `json:"nil"`
	Absent  **jsonInner       `json:"absent,omitzero"`
	Null    **jsonInner       `json:"null,omitzero"`
	Present **jsonInner       `json:"present,omitzero"`
	Omit    string            `json:"omit,omitempty"`
	Nested  map[string][]bool `json:"nested"`
}

// TestEncodeMatchesEncodingJSON: the response encoder writes what
// encoding/json writes for the values the API renders, the awkward ones
// included (HTML and line-separator escapes, invalid UTF-8, float edges,
// nanosecond times, the three states of an expansion, Marshalers).
func TestEncodeMatchesEncodingJSON(t *testing.T) {
	s := "<script>&'\"\u2028\u2029\x00\xff"
	amount, err := money.Parse("1234.5")
	if err != nil {
		t.Fatal(err)
	}
	var none *jsonInner
	some := &jsonInner{Name: "Ä <b>"}
	tests := []struct {
		name string
		v    any
	}{
		{"escapes and edges", jsonProbe{
			Text: s, Ptr: &s, Float: 1e21, Floats: []float64{0, math.Copysign(0, -1), 1e-7, 123456789.125, math.MaxFloat64, 5e-324, 0.1},
			At: time.Date(2026, 11, 25, 1, 2, 3, 456789, time.FixedZone("x", -5*3600)),
			ID: uuid.MustParse("0b6f4a52-94f2-4c0e-9d8a-3c1f6e2b7a10"), IDs: []uuid.UUID{uuid.Nil},
			Amount: &amount, Map: map[string]any{"b": 1, "a": []any{"x", nil, true, 2.5}, "<": ">"},
			Raw: json.RawMessage(` {"a" : [1, 2]} `), Empty: []string{}, Null: &none, Present: &some,
			Nested: map[string][]bool{"z": {true}, "y": nil},
		}},
		{"zero value", jsonProbe{}},
		{"envelope", Data[[]jsonProbe]{Data: []jsonProbe{{Text: "a"}, {Text: "b"}}}},
		{"error", ErrorBody{Error: ErrorObject{Code: "validation_error", Message: "bad <input>", Details: map[string]any{"field": "name"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			std, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Encode(tt.v)
			if err != nil || string(got) != string(std) {
				t.Fatalf("Encode:\n got  %s (%v)\n want %s", got, err, std)
			}
		})
	}
}
