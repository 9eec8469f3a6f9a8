package client

import (
	"encoding/json"
	"fmt"
)

// A write's warnings are unions of several shapes, told apart by their
// code. The generated As… methods decode any warning into any of them
// without an error, so read the code first and decode with the method its
// code names (docs/sdk.md, "Warnings"):
//
//	for _, w := range *res.JSON201.Warnings {
//		switch code, _ := w.Code(); code {
//		case "over_payload", "over_volume":
//			load, err := w.AsLoadWarning()
//			…
//		case "overbooked":
//			ob, err := w.AsOverbookWarning()
//			…
//		}
//	}

// Code returns the warning's code: overbooked (AsOverbookWarning),
// over_payload or over_volume (AsLoadWarning), overdue_returns
// (AsOverdueReturnsWarning) or ignored_fields (AsIgnoredFieldsWarning); a
// code this SDK does not know yet is returned as it is.
func (t ReservationWritten_Warnings_Item) Code() (string, error) { return warningCode(t.union) }

// Code returns the warning's code: stock_below_reserved
// (AsStockBelowReservedWarning) or ignored_fields (AsIgnoredFieldsWarning);
// a code this SDK does not know yet is returned as it is.
func (t EquipmentPatched_Warnings_Item) Code() (string, error) { return warningCode(t.union) }

// Code returns the warning's code: reservations_outside_event
// (AsReservationsOutsideEventWarning), reservations_still_held
// (AsReservationsStillHeldWarning) or ignored_fields
// (AsIgnoredFieldsWarning); a code this SDK does not know yet is returned
// as it is.
func (t EventPatched_Warnings_Item) Code() (string, error) { return warningCode(t.union) }

// Code returns the warning's code: reservations_on_vehicle
// (AsReservationsOnVehicleWarning), over_payload or over_volume
// (AsVehicleLoadWarning), or ignored_fields (AsIgnoredFieldsWarning); a
// code this SDK does not know yet is returned as it is.
func (t VehiclePatched_Warnings_Item) Code() (string, error) { return warningCode(t.union) }

// Code returns the warning's code: pick_list_not_updated
// (AsPickListNotUpdatedWarning) or ignored_fields (AsIgnoredFieldsWarning);
// a code this SDK does not know yet is returned as it is.
func (t QuotePatched_Warnings_Item) Code() (string, error) { return warningCode(t.union) }

func warningCode(raw json.RawMessage) (string, error) {
	var w struct {
		Code *string `json:"code"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return "", fmt.Errorf("eventapi: a warning that is not an object: %w", err)
	}
	if w.Code == nil {
		return "", fmt.Errorf("eventapi: a warning without a code")
	}
	return *w.Code, nil
}
