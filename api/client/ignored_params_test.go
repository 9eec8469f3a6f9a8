package client_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/eventapi/eventapi/api/client"
)

// TestIgnoredParametersReachTheSDK: a parameter a RequestEditorFn adds
// that the operation does not take (here a filter misspelt by hand) is
// named in the typed answer's Warnings; the SDK's own parameters get none
// (docs/sdk.md, "Warnings"). Every exchange goes through the contract check.
func TestIgnoredParametersReachTheSDK(t *testing.T) {
	api, ctx := sdkFor(t, "Ignored parameters")
	if res, err := api.CreateVehicleWithResponse(ctx, nil, client.VehicleCreate{Name: "Truck 9"}); err != nil || res.JSON201 == nil {
		t.Fatalf("create: %v", err)
	}
	limit := 10
	plain, err := api.ListVehiclesWithResponse(ctx, &client.ListVehiclesParams{Limit: &limit})
	if err != nil || plain.JSON200 == nil {
		t.Fatalf("list: %v", err)
	}
	if plain.JSON200.Warnings != nil {
		t.Errorf("the SDK's own parameters: warnings %+v, want none", *plain.JSON200.Warnings)
	}
	misspelt := func(_ context.Context, req *http.Request) error {
		q := req.URL.Query()
		q.Set("nmae", "Truck 9")
		req.URL.RawQuery = q.Encode()
		return nil
	}
	res, err := api.ListVehiclesWithResponse(ctx, &client.ListVehiclesParams{Limit: &limit}, misspelt)
	if err != nil || res.JSON200 == nil {
		t.Fatalf("list with nmae: %v, status %d", err, res.StatusCode())
	}
	if w := res.JSON200.Warnings; w == nil || len(*w) != 1 || (*w)[0].Code != client.IgnoredParameters ||
		!slices.Equal((*w)[0].Details.Parameters, []string{"nmae"}) {
		t.Errorf("list with nmae: warnings %+v, want one ignored_parameters naming nmae", w)
	}
}
