package client

import (
	"encoding/json"
	"testing"
)

func TestWarningCode(t *testing.T) {
	for _, tc := range []struct {
		name, json, want string
		fails            bool
	}{
		{"load", `{"code":"over_payload","details":{"payload_lbs":1405}}`, "over_payload", false},
		{"overbook", `{"code":"overbooked","details":{"deficit":1}}`, "overbooked", false},
		{"outside the event", `{"code":"reservations_outside_event","details":{"count":2}}`, "reservations_outside_event", false},
		{"unknown code kept", `{"code":"something_new","details":{}}`, "something_new", false},
		{"no code", `{"details":{}}`, "", true},
		{"not an object", `["over_payload"]`, "", true},
	} {
		var r ReservationWritten_Warnings_Item
		var e EquipmentPatched_Warnings_Item
		var ev EventPatched_Warnings_Item
		if err := json.Unmarshal([]byte(tc.json), &ev); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := json.Unmarshal([]byte(tc.json), &r); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := json.Unmarshal([]byte(tc.json), &e); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, code := range []func() (string, error){r.Code, e.Code, ev.Code} {
			got, err := code()
			if got != tc.want || (err != nil) != tc.fails {
				t.Errorf("%s: Code() = %q, %v; want %q, failure %v", tc.name, got, err, tc.want, tc.fails)
			}
		}
	}
}
