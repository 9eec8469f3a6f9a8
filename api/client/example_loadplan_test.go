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
// equipment on a truck, marks the items loaded and writes the case sizes it
// measured back through v1, to show both surfaces in one flow (a new
// integration writes them with v2's UpdateEquipment, which has the same
// fields; v1 is deprecated). TestTypicalIntegration runs it against a real
// server; example_nethttp_test.go is the same flow with net/http alone.

// caseSize is a measured case: inches and pounds.
type caseSize struct{ L, W, H, Lbs float64 }

// planReport is what the planner did.
type planReport struct {
	Reserved, AlreadyReserved, Loaded, AlreadyLoaded, Measured int
	Short                                                      map[uuid.UUID]int // equipment → units missing (booked anyway)
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
		body := client.ReservationCreate{EquipmentId: id, EventId: &jobID, VehicleId: &truck.Id,
			TruckPosition: &position, StartDate: job.JSON200.Data.StartDate, EndDate: job.JSON200.Data.EndDate, Quantity: &p.quantity}
		_, err := api.CreateEquipmentReservationWithResponse(ctx, nil, body)
		if client.CodeOf(err) == "overbook_blocked" { // not enough stock: record the deficit, force only with a reason
			var d client.OverbookDetails
			if err := err.(*client.APIError).DecodeDetails(&d); err != nil {
				return nil, err
			}
			rep.Short[id] = d.Deficit
			if overbookReason == "" {
				continue
			}
			force := true
			body.ForceOverbook, body.OverbookReason = &force, &overbookReason
			_, err = api.CreateEquipmentReservationWithResponse(ctx, nil, body)
		}
		switch {
		case err == nil:
			rep.Reserved++
		case client.CodeOf(err) == "duplicate_record": // already booked for this job: treat as existing, do not retry
			rep.AlreadyReserved++
		default: // any other refusal, or an error with no code (the network, a gateway's HTML page)
			return nil, err
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
