package reservations_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestLoadWarningsNeedReservationRead: the over_payload / over_volume
// warnings of a reservation write carry the truck's totals, other
// reservations' load included, which GET /vehicles/{id}/load shows only to
// a key holding equipment_reservations:read. A key without it gets the
// write (201) without those warnings, as an equipment PATCH gives such a
// key no stock_below_reserved; its other warnings (ignored_fields) stay. A
// PATCH needs the read scope anyway (403 before anything is looked at).
//
// The item weighs 50 lb in a 500 cu in case; the truck takes 100 lb and
// 1,000 cu in. A key with every scope puts one on the truck, the key under
// test two more (POST), or grows a second reservation of one to two (PATCH).
func TestLoadWarningsNeedReservationRead(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eq := rows.Insert("equipment", map[string]any{"name": "Sub", "weight_lbs": 50,
		"case_length_in": 10, "case_width_in": 10, "case_height_in": 5})
	onNewTruck := func(t *testing.T) (truck uuid.UUID, reservation string) {
		t.Helper()
		truck = rows.Insert("vehicles", map[string]any{"name": "Van", "status": "available", "max_payload_lbs": 100,
			"interior_length_inches": 10, "interior_width_inches": 10, "interior_height_inches": 10})
		res := a.Post(base, reserve(eq, 1, 2, "vehicle_id", truck.String()))
		want(t, res, 201, "")
		return truck, res.Data()["id"].(string)
	}
	write, read := tenancy.EquipmentReservationsWrite, tenancy.EquipmentReservationsRead
	for _, tt := range []struct {
		name     string
		scopes   []tenancy.Scope
		seesLoad bool // POST answers the load warnings; PATCH is allowed
	}{
		{"every scope", tenancy.AllScopes, true},
		{"reservations read and write", []tenancy.Scope{write, read}, true},
		{"reservations write only", []tenancy.Scope{write}, false},
		{"reservations write, other reads", []tenancy.Scope{write, tenancy.EquipmentRead, tenancy.EventsRead}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			key := a.WithKey(apikey.Live, tt.scopes...)

			truck, _ := onNewTruck(t)
			// overbook_reason without force_overbook stores nothing:
			// ignored_fields, which every key gets.
			res := key.Post(base, reserve(eq, 1, 2, "vehicle_id", truck.String(), "quantity", 2,
				"overbook_reason", "not needed here"))
			want(t, res, 201, "")
			if tt.seesLoad {
				loadWarnings(t, res, 150, "ignored_fields")
			} else {
				noLoadWarnings(t, res, "ignored_fields")
			}

			truck, _ = onNewTruck(t)
			second := a.Post(base, reserve(eq, 1, 2, "vehicle_id", truck.String()))
			want(t, second, 201, "") // 100 lb, 1,000 cu in: exactly full, not over
			noLoadWarnings(t, second)
			id := second.Data()["id"].(string)
			res = key.Patch(base+"/"+id, body("quantity", 2))
			if !tt.seesLoad {
				want(t, res, 403, "insufficient_scope")
				if q := a.Get(base + "/" + id).Data()["quantity"]; q != 1.0 {
					t.Fatalf("quantity %v after the refusal, want 1", q)
				}
				return
			}
			want(t, res, 200, "")
			loadWarnings(t, res, 150)
		})
	}
}

// loadWarnings checks that res carries over_payload then over_volume, each
// with the truck's totals (payload_lbs the truck's whole load), then the
// warnings extra.
func loadWarnings(t *testing.T, res *apitest.Response, payload float64, extra ...string) {
	t.Helper()
	ws, _ := res.JSON()["warnings"].([]any)
	var codes []string
	for _, w := range ws {
		m := w.(map[string]any)
		codes = append(codes, m["code"].(string))
		if d, _ := m["details"].(map[string]any); strings.HasPrefix(m["code"].(string), "over_") &&
			(d["payload_lbs"] != payload || d["max_payload_lbs"] != 100.0 || d["interior_volume_cuin"] != 1000.0) {
			t.Errorf("%s details %v, want the truck's totals", m["code"], d)
		}
	}
	if want := append([]string{"over_payload", "over_volume"}, extra...); strings.Join(codes, ",") != strings.Join(want, ",") {
		t.Fatalf("warnings %v, want %v: %s", codes, want, res.Body)
	}
}

// noLoadWarnings checks that res carries exactly the warnings codes (none
// when codes is empty) and no load totals anywhere.
func noLoadWarnings(t *testing.T, res *apitest.Response, codes ...string) {
	t.Helper()
	ws, _ := res.JSON()["warnings"].([]any)
	var got []string
	for _, w := range ws {
		got = append(got, w.(map[string]any)["code"].(string))
	}
	if strings.Join(got, ",") != strings.Join(codes, ",") || bytes.Contains(res.Body, []byte("payload_lbs")) {
		t.Fatalf("warnings %v, want %v and no load totals: %s", got, codes, res.Body)
	}
}
