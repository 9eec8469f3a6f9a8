package demo

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage/events"
	"github.com/eventapi/eventapi/api/storage/reservations"
	"github.com/eventapi/eventapi/tenancy"
)

// plannerLoad is what the showcase puts on the first truck: 9,680 of its
// 10,000 lbs (nearly full by weight, two thirds of its volume).
var plannerLoad = []struct {
	name string
	qty  int
}{
	{"K2 line array cabinet", 24},
	{"KS28 subwoofer", 12},
	{"MAC Viper Profile", 12},
	{"Lodestar 1-ton chain motor", 16},
	{"SD12 mixing console", 2},
}

// shortItem is the equipment that is short next week: the showcase takes
// both consoles and a breakout asks for one more (forced, sub-hire pending).
const shortItem = "SD12 mixing console"

// showcaseName names the showcase's event, and breakoutNote the note of the
// reservation that makes the console short: Refresh finds them by these.
const (
	showcaseName = "Pacific Sound Showcase"
	breakoutNote = "Corporate breakout, needs a third console"
)

// showcaseDates is when the showcase runs for a seed or a refresh at now:
// from 08:00 UTC eight days on to 20:00 UTC ten days on, inside the week
// that starts seven days from today (docs/availability.md, "Next week's trucks and their loads").
func showcaseDates(now time.Time) (start, end time.Time) {
	day := now.UTC().Truncate(24 * time.Hour)
	return day.AddDate(0, 0, 8).Add(8 * time.Hour), day.AddDate(0, 0, 10).Add(20 * time.Hour)
}

// planner seeds the two answers the planning endpoints exist for
// (docs/availability.md): a showcase next week whose load leaves the first
// available truck nearly full, and equipment that is short that week. It
// needs the catalogue and does nothing without it.
func (s *seeder) planner(ctx context.Context) error {
	truck, ok := s.firstAvailableVehicle()
	if !ok || len(s.equipmentNamed) == 0 || len(s.clients) == 0 {
		return nil
	}
	start, end := showcaseDates(time.Now())
	ev, err := events.Create(ctx, s.tx, s.t, cols{
		"name": showcaseName, "status": events.StatusConfirmed, "venue": "WAMU Theater, Seattle",
		"description": "Line array shoot-out and lighting showcase for touring engineers",
		"start_date":  start, "end_date": end, "client_id": s.clients[0],
	}.changes())
	if err != nil {
		return err
	}
	for i, l := range plannerLoad {
		pos := []string{"nose", "front", "middle", "rear", "tail lift"}[i]
		r := &reservations.Reservation{EquipmentID: s.equipmentNamed[l.name], EventID: &ev.ID, VehicleID: &truck,
			TruckPosition: &pos, StartDate: start, EndDate: end, Quantity: l.qty, ReservationStatus: reservations.StatusReserved}
		if _, _, err := reservations.Create(ctx, s.tx, s.t.WithStockGuard(tenancy.StockGuardWarn), r, reservations.Override{}); err != nil {
			return err
		}
	}
	reason, note := "Sub-hire from a partner requested", breakoutNote
	extra := &reservations.Reservation{EquipmentID: s.equipmentNamed[shortItem], StartDate: start.Add(24 * time.Hour),
		EndDate: end, Quantity: 1, ReservationStatus: reservations.StatusReserved, Notes: &note}
	_, _, err = reservations.Create(ctx, s.tx, s.t.WithStockGuard(tenancy.StockGuardBlock), extra,
		reservations.Override{Force: true, Reason: &reason})
	return err
}

func (s *seeder) firstAvailableVehicle() (uuid.UUID, bool) {
	if len(s.availableVehicles) == 0 {
		return uuid.Nil, false
	}
	return s.availableVehicles[0], true
}
