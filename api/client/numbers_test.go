package client_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/client"
)

// TestLoadDecodesAnyInteriorVolume: a truck's interior volume is exact and
// can pass int64 ((2^31 − 1)^3 cubic inches); the SDK reads it whole,
// as the document tells clients to (a json.Number), where an int field
// failed to decode the whole answer.
func TestLoadDecodesAnyInteriorVolume(t *testing.T) {
	api, ctx := sdkFor(t, "Fleet")
	for _, c := range []struct {
		side int
		want string
	}{
		{2147483647, "9903520300447984150353281023"},
		{100, "1000000"},
	} {
		side := c.side
		v, err := api.CreateVehicleWithResponse(ctx, nil, client.VehicleCreate{Name: "Truck",
			InteriorLengthInches: &side, InteriorWidthInches: &side, InteriorHeightInches: &side})
		if err != nil {
			t.Fatal(err)
		}
		start, end := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 6, 2, 0, 0, 0, 0, time.UTC)
		load, err := api.GetVehicleLoadWithResponse(ctx, v.JSON201.Data.Id, &client.GetVehicleLoadParams{Start: &start, End: &end})
		if err != nil {
			t.Fatalf("side %d: %v", side, err)
		}
		if got := load.JSON200.Data.InteriorVolumeCuin; got == nil || got.String() != c.want {
			t.Errorf("side %d: interior_volume_cuin %v, want %s (body %s)", side, got, c.want, load.Body)
		}
	}
}

// TestMoneyAndMeasuresRoundTrip: prices up to the largest the API takes,
// and weights with more than 7 significant digits, go out and come back
// through the SDK unchanged (the document marks every number as a double;
// as float32, 1234567.89 was stored as 1234567.90).
func TestMoneyAndMeasuresRoundTrip(t *testing.T) {
	api, ctx := sdkFor(t, "Prices")
	for _, c := range []struct {
		rate   client.MoneyInput
		weight float64
		text   string // the rate as the server renders it
	}{
		{1234567.89, 123456.789, `"daily_rate":1234567.89`},
		{9999999999.99, 999999999.5, `"daily_rate":9999999999.99`},
		{0.07, 0.001, `"daily_rate":0.07`},
	} {
		rate, weight := c.rate, c.weight
		res, err := api.CreateEquipmentWithResponse(ctx, nil, client.EquipmentCreate{Name: "Case", DailyRate: &rate, WeightLbs: &weight})
		if err != nil {
			t.Fatalf("rate %v: %v", rate, err)
		}
		if !bytes.Contains(res.Body, []byte(c.text)) {
			t.Errorf("rate %v was stored as: %s", rate, res.Body)
		}
		got, err := api.GetEquipmentWithResponse(ctx, res.JSON201.Data.Id, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := got.JSON200.Data; d.DailyRate == nil || float64(*d.DailyRate) != float64(rate) || d.WeightLbs == nil || *d.WeightLbs != weight {
			t.Errorf("rate %v, weight %v read back as %v, %v", rate, weight, d.DailyRate, d.WeightLbs)
		}
	}
}

// sdkFor is the SDK on a fresh server as a new organization's live key,
// with a context that ends with the test (at most a minute).
func sdkFor(t *testing.T, org string) (*client.API, context.Context) {
	t.Helper()
	env := apitest.New(t)
	o := env.NewOrg(org)
	api, err := client.New(env.Listen(t)+"/api/v2", o.Key, client.HTTPClient(contractClient(t)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return api, ctx
}
