package planning_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
)

// loadCodes are the load warning codes of a write's answer.
func loadCodes(r *apitest.Response) []string {
	var out []string
	ws, _ := r.JSON()["warnings"].([]any)
	for _, w := range ws {
		if c := w.(map[string]any)["code"].(string); c == "over_payload" || c == "over_volume" {
			out = append(out, c)
		}
	}
	return out
}

// TestLoadPeakNotSum is the truck of docs/decisions.md, "Truck load: the
// peak decides": two separate 6,000 lb trips in a week and a 50 lb
// toolbox booked all week on a 10,000 lb truck. It never
// carries more than 6,050 lb, so no write warns and the week's load is not
// over, though payload_lbs (the Σ over the week) is 12,050; a third 6,000
// lb trip overlapping both does warn. Trip 2 starts when trip 1 ends:
// windows are half-open, so the two never ride together.
func TestLoadPeakNotSum(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	v := truck(rows, "Box Truck 26", 10000, 300, 96, 100) // 2,880,000 cu in
	deck := item(rows, "Stage deck", 600, 48, 48, 10)     // 23,040 cu in
	toolbox := item(rows, "Toolbox", 50, 30, 20, 20)      // 12,000 cu in

	for _, w := range []struct {
		what        string
		eq          uuid.UUID
		from, to, q int
	}{{"trip 1", deck, 2, 4, 10}, {"trip 2, back to back", deck, 4, 6, 10}, {"toolbox all week", toolbox, 1, 8, 1}} {
		if got := loadCodes(onTruck(t, a, w.eq, v, w.from, w.to, w.q)); len(got) != 0 {
			t.Errorf("%s: warnings %v, want none: the truck never carries more than 6,050 lb", w.what, got)
		}
	}
	week := a.Get(loadPath(v, 1, 8)).Data()
	want := map[string]any{"payload_lbs": 12050.0, "peak_payload_lbs": 6050.0, "over_payload": false,
		"cargo_volume_cuin": 2*230400.0 + 12000, "peak_cargo_volume_cuin": 230400.0 + 12000, "over_volume": false}
	for k, w := range want {
		if week[k] != w {
			t.Errorf("the week: %s = %v, want %v", k, week[k], w)
		}
	}

	// A third trip over days 3–5 rides with both halves: 12,050 lb.
	r := onTruck(t, a, deck, v, 3, 5, 10)
	if got := loadCodes(r); len(got) != 1 || got[0] != "over_payload" {
		t.Fatalf("third trip: warnings %v, want over_payload: %s", got, r.Body)
	}
	d := r.JSON()["warnings"].([]any)[0].(map[string]any)["details"].(map[string]any)
	if d["payload_lbs"] != 18050.0 || d["peak_payload_lbs"] != 12050.0 || d["over_payload"] != true || d["window_start"] != day(3) {
		t.Errorf("third trip's details: %v, want Σ 18,050 lb and a peak of 12,050 over days 3–5", d)
	}
	week = a.Get(loadPath(v, 1, 8)).Data()
	if week["payload_lbs"] != 18050.0 || week["peak_payload_lbs"] != 12050.0 || week["over_payload"] != true {
		t.Errorf("the week with the third trip: %v", week)
	}
}

// TestLoadDecimalFigures: a 1.005 lb clamp of 1.005 × 1 × 1 in on a 1 lb,
// 1 cu in cart is 1.01 lb and 1.01 cu in rounded to hundredths, over both,
// on the write and in the load: the figures count as the decimals entered,
// not as the float64's 1.00499999999999989….
func TestLoadDecimalFigures(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	cart := truck(rows, "Cart", 1, 1, 1, 1)
	clamp := item(rows, "Clamp", 1.005, 1.005, 1, 1)
	r := onTruck(t, a, clamp, cart, 1, 2, 1)
	if got := loadCodes(r); len(got) != 2 {
		t.Errorf("write: warnings %v, want over_payload and over_volume: %s", got, r.Body)
	}
	l := a.Get(loadPath(cart, 1, 2)).Data()
	if l["payload_lbs"] != 1.01 || l["peak_payload_lbs"] != 1.01 || l["over_payload"] != true ||
		l["cargo_volume_cuin"] != 1.01 || l["peak_cargo_volume_cuin"] != 1.01 || l["over_volume"] != true {
		t.Errorf("load: %v", l)
	}
}
