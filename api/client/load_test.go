package client_test

import (
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
	env := apitest.New(t)
	org := env.NewOrg("Fleet")
	api, err := client.New(env.Listen(t)+"/api/v2", org.Key, client.HTTPClient(contractClient(t)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
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
