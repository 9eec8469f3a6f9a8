package client_test

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/client"
	v1 "github.com/eventapi/eventapi/api/client/v1"
)

// The typical integration, written with the SDK: a truck load planner pulls
// a job's case manifest, lists the assignable vehicles, books every piece of
// equipment on a truck (or brings the job's existing reservation of it up to
// the plan, so that it can be run again as the pick list changes), marks
// the items of the pieces on the truck loaded and writes the case sizes it
// measured back through v1, to show both surfaces in one flow (a new
// integration writes them with v2's UpdateEquipment, which has the same
// fields; v1 is deprecated). TestTypicalIntegration runs it against a real
// server; example_nethttp_test.go is the same flow with net/http alone.

// caseSize is a measured case: inches and pounds.
type caseSize struct{ L, W, H, Lbs float64 }

// planReport is what the planner did: reservations created, updated (an
// existing one topped up or put on the truck) and already as planned; items
// moved to loaded and already loaded or later; cases measured.
type planReport struct {
	Reserved, Updated, AlreadyReserved, Loaded, AlreadyLoaded, Measured int
	Short                                                               map[uuid.UUID]int // equipment → units missing (booked anyway with a reason)
}

// pastLoading reports whether an item's stage is loaded or later
// (installing, installed): the crew moved it on, and a stage never moves
// back (422 invalid_transition), so a planner run again on show day leaves
// it as it is.
func pastLoading(stage string) bool {
	return stage == string(client.Loaded) || stage == string(client.Installing) || stage == string(client.Installed)
}

// loadPlan books with overbookReason when the stock guard blocks a
// reservation (the retry_with hint of overbook_blocked), after recording the
// deficit; with no reason it leaves such items unbooked.
func loadPlan(ctx context.Context, api *client.API, legacy *v1.API, jobID uuid.UUID, measured map[uuid.UUID]caseSize, overbookReason string) (*planReport, error) {
	job, err := api.GetJobWithResponse(ctx, jobID, nil)
	if err != nil {
		return nil, err
	}
	var truck *client.Vehicle // the assignable vehicle with the largest payload
	for v, err := range client.All[client.Vehicle](ctx, api.Raw.ListVehicles, nil) {
		if err != nil {
			return nil, err
		}
		if truck == nil || v.MaxPayloadLbs != nil && (truck.MaxPayloadLbs == nil || *v.MaxPayloadLbs > *truck.MaxPayloadLbs) {
			truck = &v
		}
	}
	if truck == nil {
		return nil, fmt.Errorf("no assignable vehicle")
	}
	// One reservation per piece of equipment, for the quantity of all its
	// items: a list made by hand may name one piece twice, and a second
	// reservation would be refused as a duplicate with its units unbooked.
	type piece struct {
		name     string
		quantity int
		items    []client.PickListItem
	}
	pieces, order := map[uuid.UUID]*piece{}, []uuid.UUID{}
	manifest := &client.ListPickListsParams{EventId: &jobID, Expand: &[]string{"items", "equipment", "category"}}
	for list, err := range client.All[client.PickList](ctx, api.Raw.ListPickLists, manifest) {
		if err != nil {
			return nil, err
		}
		for _, item := range *list.Items {
			if item.Equipment == nil {
				continue // a service line, not a case
			}
			p := pieces[item.Equipment.Id]
			if p == nil {
				p = &piece{name: item.Equipment.Name}
				pieces[item.Equipment.Id], order = p, append(order, item.Equipment.Id)
			}
			p.quantity += item.Quantity
			p.items = append(p.items, item)
		}
	}
	rep := &planReport{Short: map[uuid.UUID]int{}}
	for slot, id := range order {
		p := pieces[id]
		position := fmt.Sprintf("%s, slot %d", p.name, slot+1)
		onTruck, err := reserve(ctx, api, rep, job.JSON200.Data, id, p.quantity, truck.Id, position, overbookReason)
		if err != nil {
			return nil, err
		}
		if !onTruck {
			continue // not enough stock and no reason to force: its items are not loaded
		}
		for _, item := range p.items {
			if pastLoading(string(item.Stage)) {
				rep.AlreadyLoaded++
				continue
			}
			stage := client.Loaded
			if _, err := api.UpdatePickListItemWithResponse(ctx, item.Id, nil, client.PickListItemUpdate{Stage: &stage}); err != nil {
				return nil, err
			}
			rep.Loaded++
		}
	}
	for id, c := range measured {
		roadCase := v1.RoadCase
		if _, err := legacy.PatchEquipmentV1WithResponse(ctx, id.String(), v1.EquipmentPatch{
			CaseLengthIn: &c.L, CaseWidthIn: &c.W, CaseHeightIn: &c.H, WeightLbs: &c.Lbs, CaseType: &roadCase}); err != nil {
			return nil, err
		}
		rep.Measured++
	}
	return rep, nil
}

// reserve puts quantity units of equipment id on the truck for the job. It
// creates the reservation or, when the job has one already (409
// duplicate_record: an earlier run, or the office booked the gear without a
// truck), reads that one and updates it if it falls short of the plan: too
// few units, or no truck or another. It reports whether the units are on
// the truck.
func reserve(ctx context.Context, api *client.API, rep *planReport, job client.Event, id uuid.UUID, quantity int,
	truck uuid.UUID, position, overbookReason string) (bool, error) {
	body := client.ReservationCreate{EquipmentId: id, EventId: &job.Id, VehicleId: &truck, TruckPosition: &position,
		StartDate: job.StartDate, EndDate: job.EndDate, Quantity: &quantity}
	written, err := forceIfShort(rep, id, overbookReason, func(force bool) error {
		if force {
			body.ForceOverbook, body.OverbookReason = &force, &overbookReason
		}
		_, err := api.CreateEquipmentReservationWithResponse(ctx, nil, body)
		return err
	})
	if err == nil {
		if written {
			rep.Reserved++
		}
		return written, nil
	}
	if client.CodeOf(err) != "duplicate_record" {
		return false, err // any other refusal, or an error with no code (the network, a gateway's HTML page)
	}
	var dup client.DuplicateDetails
	if derr := err.(*client.APIError).DecodeDetails(&dup); derr != nil || dup.ExistingId == nil {
		return false, err // no existing_id to read it by: stop on the 409
	}
	existing, err := api.GetEquipmentReservationWithResponse(ctx, *dup.ExistingId, nil)
	if err != nil {
		return false, err
	}
	r := existing.JSON200.Data
	if r.Quantity >= quantity && r.VehicleId != nil && *r.VehicleId == truck {
		rep.AlreadyReserved++
		return true, nil
	}
	update := client.ReservationUpdate{VehicleId: &truck, TruckPosition: &position}
	if r.Quantity < quantity {
		update.Quantity = &quantity // never fewer: the office may have booked spares
	}
	written, err = forceIfShort(rep, id, overbookReason, func(force bool) error {
		if force {
			update.ForceOverbook, update.OverbookReason = &force, &overbookReason
		}
		_, err := api.UpdateEquipmentReservationWithResponse(ctx, r.Id, nil, update)
		return err
	})
	if written {
		rep.Updated++
	}
	return written, err
}

// forceIfShort runs write, a reservation's create or update. When the stock
// guard blocks it (422 overbook_blocked) it records the deficit and, given
// a reason, runs it again forced, as the error's retry_with says. It
// reports whether the write was made.
func forceIfShort(rep *planReport, id uuid.UUID, overbookReason string, write func(force bool) error) (bool, error) {
	err := write(false)
	if client.CodeOf(err) != "overbook_blocked" {
		return err == nil, err
	}
	var d client.OverbookDetails
	if err := err.(*client.APIError).DecodeDetails(&d); err != nil {
		return false, err
	}
	rep.Short[id] = d.Deficit
	if overbookReason == "" {
		return false, nil
	}
	err = write(true)
	return err == nil, err
}
