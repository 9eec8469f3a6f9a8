package client_test

import (
	"encoding/json"
	"testing"

	"github.com/eventapi/eventapi/api/client"
)

// TestClearingANullableField: a PATCH struct's nil pointer means "leave as
// it is" (omitempty), so a nullable field is cleared by naming it with
// Set(name, nil), which sends null (docs/sdk.md, "Clearing a field").
func TestClearingANullableField(t *testing.T) {
	api, ctx := sdkFor(t, "Clearing")
	rate, weight := client.MoneyInput(12.5), 80.0
	created, err := api.CreateEquipmentWithResponse(ctx, nil, client.EquipmentCreate{Name: "Amp rack", DailyRate: &rate, WeightLbs: &weight})
	if err != nil {
		t.Fatal(err)
	}
	id := created.JSON201.Data.Id

	// The zero value of the field sends nothing and changes nothing.
	var keep client.EquipmentUpdate
	if b, _ := json.Marshal(keep); string(b) != "{}" {
		t.Fatalf("an empty update sends %s", b)
	}

	var clear client.EquipmentUpdate
	clear.Set("weight_lbs", nil)
	if b, _ := json.Marshal(clear); string(b) != `{"weight_lbs":null}` {
		t.Fatalf("Set(name, nil) sends %s, want null", b)
	}
	res, err := api.UpdateEquipmentWithResponse(ctx, id, nil, clear)
	if err != nil {
		t.Fatal(err)
	}
	if d := res.JSON200.Data; d.WeightLbs != nil || d.DailyRate == nil || float64(*d.DailyRate) != 12.5 {
		t.Fatalf("after clearing weight_lbs: weight %v, rate %v", d.WeightLbs, d.DailyRate)
	}
}
