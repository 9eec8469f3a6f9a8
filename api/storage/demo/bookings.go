package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/api/storage/invoices"
	"github.com/eventapi/eventapi/api/storage/picklists"
	"github.com/eventapi/eventapi/api/storage/quotes"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/api/storage/reservations"
	"github.com/eventapi/eventapi/platform/money"
	"github.com/eventapi/eventapi/tenancy"
)

// bookings seeds, on top of the catalogue: truck assignments for the first
// event, two quotes with line items (the approved one generates its pick
// list), an invoice, and that pick list in progress with items at several
// stages. With no equipment seeded there is nothing to book, and it does
// nothing. The figures agree with each other: the first event reserves what
// its approved quote bills (bookedQuantity of each), and each quote prices
// its event's rental days.
func (s *seeder) bookings(ctx context.Context) error {
	if len(s.equipment) == 0 {
		return nil
	}
	eq, err := related.EquipmentByID(ctx, s.tx, s.t.Org, s.equipment, false)
	if err != nil {
		return err
	}
	start := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 14).Add(8 * time.Hour)
	end := start.Add(72 * time.Hour)
	evs, err := related.Events(ctx, s.tx, s.t.Org, s.events[:min(2, len(s.events))])
	if err != nil {
		return err
	}
	var eventID, clientID *uuid.UUID
	if len(s.events) > 0 {
		eventID = &s.events[0]
		if ev := evs[s.events[0]]; ev != nil {
			start, end = ev.StartDate, ev.EndDate
			clientID = ev.ClientID
		}
	}
	if clientID == nil && len(s.clients) > 0 {
		clientID = &s.clients[0]
	}
	if err := s.truckAssignments(ctx, eventID, start, end); err != nil {
		return err
	}
	approved, err := s.quote(ctx, "Main stage audio and lighting", clientID, eventID,
		s.quoteLines(eq, 0, 4, rentalDays(start, end), "Crew and transport", 145_000), "approved")
	if err != nil {
		return err
	}
	secondEvent, secondDays := eventID, rentalDays(start, end)
	if len(s.events) > 1 {
		secondEvent = &s.events[1]
		if ev := evs[s.events[1]]; ev != nil {
			secondDays = rentalDays(ev.StartDate, ev.EndDate)
		}
	}
	if _, err := s.quote(ctx, "Breakout rooms AV", clientID, secondEvent,
		s.quoteLines(eq, 4, 3, secondDays, "Technician day rate", 65_000), "sent"); err != nil {
		return err
	}
	if err := s.invoice(ctx, approved, start); err != nil {
		return err
	}
	return s.packing(ctx, approved.ID)
}

// bookedQuantity is how many of each equipment the first event reserves and
// its approved quote bills.
const bookedQuantity = 2

// rentalDays is how many rental days a show from start to end is billed:
// each started 24 hours, at least one.
func rentalDays(start, end time.Time) int {
	return max(1, int((end.Sub(start)+24*time.Hour-1)/(24*time.Hour)))
}

// truckAssignments reserves the first equipment records for the event and
// loads them on the first available truck.
func (s *seeder) truckAssignments(ctx context.Context, eventID *uuid.UUID, start, end time.Time) error {
	truck, err := s.availableVehicle(ctx)
	if err != nil {
		return err
	}
	positions := []string{"front left", "front right", "middle", "rear door"}
	for i, id := range s.equipment[:min(len(positions), len(s.equipment))] {
		r := &reservations.Reservation{EquipmentID: id, EventID: eventID, StartDate: start, EndDate: end,
			Quantity: bookedQuantity, ReservationStatus: reservations.StatusReserved}
		if truck != nil {
			pos := positions[i]
			r.VehicleID, r.TruckPosition = truck, &pos
		}
		// warn: the seed never fails on stock; an overbooking is flagged.
		if _, _, err := reservations.Create(ctx, s.tx, s.t.WithStockGuard(tenancy.StockGuardWarn), r, reservations.Override{}); err != nil {
			return err
		}
	}
	return nil
}

func (s *seeder) availableVehicle(ctx context.Context) (*uuid.UUID, error) {
	vs, err := related.Vehicles(ctx, s.tx, s.t.Org, s.vehicles)
	if err != nil {
		return nil, err
	}
	for _, id := range s.vehicles {
		if v := vs[id]; v != nil && v.Status == "available" {
			return &id, nil
		}
	}
	return nil, nil
}

// quoteLines prices n equipment records from index from at days of their
// daily rate, bookedQuantity of each, and adds one service line (price in
// cents).
func (s *seeder) quoteLines(eq map[uuid.UUID]*related.Equipment, from, n, days int, service string, servicePrice money.Amount) []documents.Line {
	var lines []documents.Line
	for _, id := range s.equipment[min(from, len(s.equipment)):min(from+n, len(s.equipment))] {
		price := money.Amount(10000)
		name := "Equipment"
		if e := eq[id]; e != nil {
			name = e.Name
			if e.DailyRate != nil {
				price = *e.DailyRate
			}
		}
		eqID := id
		lines = append(lines, documents.Line{EquipmentID: &eqID, Description: fmt.Sprintf("%s, %d %s", name, days, plural(days, "day")),
			Quantity: bookedQuantity, UnitPrice: price.Mul(days)})
	}
	return append(lines, documents.Line{Description: service, Quantity: 1, UnitPrice: servicePrice})
}

// plural is word, with an s unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func (s *seeder) quote(ctx context.Context, title string, client, event *uuid.UUID, lines []documents.Line, status string) (*quotes.Quote, error) {
	var w documents.Write
	w.Changes.Set("title", title)
	w.Changes.Set("client_id", client)
	w.Changes.Set("event_id", event)
	w.Changes.Set("status", status)
	w.Status, w.Lines = status, &lines
	return quotes.Create(ctx, s.tx, s.t, w)
}

// invoice bills the approved quote: sent today, due two weeks after the
// show starts.
func (s *seeder) invoice(ctx context.Context, q *quotes.Quote, showStart time.Time) error {
	var w documents.Write
	w.Changes.Set("title", q.Title)
	w.Changes.Set("client_id", q.ClientID)
	w.Changes.Set("event_id", q.EventID)
	w.Changes.Set("status", "sent")
	w.Changes.Set("issue_date", storage.Date{Time: time.Now().UTC().Truncate(24 * time.Hour)})
	w.Changes.Set("due_date", storage.Date{Time: showStart.UTC().Truncate(24*time.Hour).AddDate(0, 0, 14)})
	w.Lines = q.LineItems
	_, err := invoices.Create(ctx, s.tx, s.t, w)
	return err
}

// packing starts packing the approved quote's pick list: its items move to
// loaded, staged and checked, the rest stay pending.
func (s *seeder) packing(ctx context.Context, quoteID uuid.UUID) error {
	id, err := picklists.ForQuote(ctx, s.tx, s.t.Org, quoteID)
	if err != nil || id == nil {
		return err
	}
	if _, err := picklists.Update(ctx, s.tx, s.t.Org, *id, storage.Changes{}, picklists.StatusInProgress); err != nil {
		return err
	}
	lists := []picklists.PickList{{ID: *id}}
	if err := picklists.Expand(ctx, s.tx, s.t.Org, lists, picklists.Expansion{Items: true}); err != nil {
		return err
	}
	stages := []string{"loaded", "staged", "checked"}
	for i, it := range *lists[0].Items {
		if i == len(stages) {
			break
		}
		if _, err := picklists.UpdateItem(ctx, s.tx, s.t.Org, it.ID, func(x *picklists.Item) { x.Stage = stages[i] }); err != nil {
			return err
		}
	}
	return nil
}
