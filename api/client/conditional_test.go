package client_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/eventapi/eventapi/api/client"
)

// TestConditionalRead: the SDK reads a record's ETag from Headers200 and
// sends it back in If-None-Match with a RequestEditorFn; an unchanged
// record answers 304 (Headers304, no JSON200), a changed one 200 with a
// new tag (docs/sdk.md, "Conditional reads"). Every exchange goes through
// the contract check.
func TestConditionalRead(t *testing.T) {
	api, ctx := sdkFor(t, "Conditional")
	created, err := api.CreateVehicleWithResponse(ctx, nil, client.VehicleCreate{Name: "Truck 7"})
	if err != nil || created.JSON201 == nil {
		t.Fatalf("create: %v %s", err, created.Body)
	}
	id := created.JSON201.Data.Id
	ifNoneMatch := func(tag string) client.RequestEditorFn {
		return func(_ context.Context, req *http.Request) error {
			req.Header.Set("If-None-Match", tag)
			return nil
		}
	}
	first, err := api.GetVehicleWithResponse(ctx, id)
	if err != nil || first.JSON200 == nil || first.Headers200 == nil || first.Headers200.ETag == "" {
		t.Fatalf("GET: %v, status %d, headers %+v", err, first.StatusCode(), first.Headers200)
	}
	tag := first.Headers200.ETag
	again, err := api.GetVehicleWithResponse(ctx, id, ifNoneMatch(tag))
	if err != nil || again.StatusCode() != http.StatusNotModified || again.JSON200 != nil || again.Headers304 == nil || again.Headers304.ETag != tag {
		t.Fatalf("GET If-None-Match %s: %v, status %d, headers %+v", tag, err, again.StatusCode(), again.Headers304)
	}
	name := "Truck 7 (long wheelbase)"
	if res, err := api.UpdateVehicleWithResponse(ctx, id, nil, client.VehicleUpdate{Name: &name}); err != nil || res.JSON200 == nil {
		t.Fatalf("PATCH: %v", err)
	}
	changed, err := api.GetVehicleWithResponse(ctx, id, ifNoneMatch(tag))
	if err != nil || changed.JSON200 == nil || changed.JSON200.Data.Name != name || changed.Headers200.ETag == tag {
		t.Fatalf("after the change: %v, status %d", err, changed.StatusCode())
	}
}
