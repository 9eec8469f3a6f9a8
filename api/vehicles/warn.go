package vehicles

import (
	"context"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/api/storage/reservations"
	"github.com/eventapi/eventapi/api/storage/vehicles"
	"github.com/eventapi/eventapi/tenancy"
)

// WarningReservationsOnVehicle is the code of the warning of a PATCH that
// takes a vehicle out of service (maintenance, retired) while reservations
// still load it (docs/availability.md, "Truck load").
const WarningReservationsOnVehicle = "reservations_on_vehicle"

// capacity are the columns whose change can leave a vehicle over a limit.
var capacity = []string{"max_payload_lbs", "interior_length_inches", "interior_width_inches", "interior_height_inches"}

// warnings are the checks of a vehicle PATCH, after it wrote the vehicle,
// of the reservations it carries from now on: one that takes it out of
// service names them (reservations_on_vehicle); one that sends its
// capacity (changed or not) answers over_payload and over_volume when their
// peak from now on exceeds it, as a reservation write does. A vehicle's
// status and capacity change none of its reservations, so the write stands
// and says what it left. Both name or sum reservations, which every key
// that may PATCH a vehicle may read (its route needs
// equipment_reservations:read as well as :write).
func warnings(ctx context.Context, ch storage.Changes) crud.WarnCheck[vehicles.Vehicle] {
	v, _ := ch.Value("status")
	status, _ := v.(string)
	outOfService := status == vehicles.StatusMaintenance || status == vehicles.StatusRetired
	resized := slices.ContainsFunc(capacity, func(col string) bool { _, set := ch.Value(col); return set })
	if !outOfService && !resized {
		return nil
	}
	return func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, v *vehicles.Vehicle) ([]rest.Warning, error) {
		now := time.Now().UTC().Truncate(time.Microsecond) // the API's precision
		var out []rest.Warning
		if outOfService {
			ahead, err := reservations.OnVehicleAhead(ctx, db, org, v.ID, now, v.Status)
			if err != nil {
				return nil, err
			}
			if ahead != nil {
				out = append(out, rest.Warning{Code: WarningReservationsOnVehicle, Details: ahead})
			}
		}
		if resized {
			w, err := overAhead(ctx, db, org, v, now)
			if err != nil {
				return nil, err
			}
			out = append(out, w...)
		}
		return out, nil
	}
}

// overAhead returns the over_payload and over_volume warnings of the
// vehicle's load, v as the PATCH wrote it, from now to the end of its last
// reservation.
func overAhead(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, v *vehicles.Vehicle, now time.Time) ([]rest.Warning, error) {
	limits := &related.Vehicle{ID: v.ID, MaxPayloadLbs: v.MaxPayloadLbs,
		InteriorLengthInches: v.InteriorLengthInches, InteriorWidthInches: v.InteriorWidthInches, InteriorHeightInches: v.InteriorHeightInches}
	t, ok, err := reservations.LoadAhead(ctx, db, org, limits, now)
	if err != nil || !ok {
		return nil, err
	}
	var out []rest.Warning
	if t.OverPayload {
		out = append(out, rest.Warning{Code: reservations.WarningOverPayload, Details: &t})
	}
	if t.OverVolume {
		out = append(out, rest.Warning{Code: reservations.WarningOverVolume, Details: &t})
	}
	return out, nil
}
