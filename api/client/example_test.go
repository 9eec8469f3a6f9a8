package client_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/client"
	v1 "github.com/eventapi/eventapi/api/client/v1"
	"github.com/eventapi/eventapi/api/storage/demo"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// rentalHouse is a demo organization served on a real port, with a v2 live
// key, a legacy v1 key and the job the load planner works on. On top of the
// demo seed (which already books the job's first four pieces on Truck 1,
// not the truck the planner picks, so the planner moves them), the job's
// pick list gets one more piece that can be booked and one whose stock
// cannot cover it, so the planner meets every answer the spec names.
type rentalHouse struct {
	base, key, legacyKey           string
	job, list, overbooked, doubled uuid.UUID
	measured                       map[uuid.UUID]caseSize
	api                            *client.API
}

func newRentalHouse(t *testing.T, env *apitest.Env) *rentalHouse {
	t.Helper()
	ctx := context.Background()
	org := env.NewOrg("Load planner test house")
	if err := demo.Seed(ctx, env.Svc.DB, tenancy.Tenant{Org: org.OrgID()}); err != nil {
		t.Fatal(err)
	}
	h := &rentalHouse{base: env.Listen(t), key: org.Key,
		legacyKey: env.NewKey(org.ID, apikey.Legacy, tenancy.EquipmentRead, tenancy.EquipmentWrite)}
	api, err := client.New(h.base+"/api/v2", h.key, client.HTTPClient(contractClient(t)))
	if err != nil {
		t.Fatal(err)
	}
	h.api = api
	confirmed := client.EventStatusConfirmed
	for ev, err := range client.All[client.Event](ctx, api.Raw.ListJobs, &client.ListJobsParams{Status: &confirmed}) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Name == "Northwind Annual Gala" { // the confirmed job with the approved quote's pick list
			h.job = ev.Id
		}
	}
	byName := map[string]uuid.UUID{}
	for eq, err := range client.All[client.Equipment](ctx, api.Raw.ListEquipment, nil) {
		if err != nil {
			t.Fatal(err)
		}
		byName[eq.Name] = eq.Id
	}
	lists, err := api.ListPickListsWithResponse(ctx, &client.ListPickListsParams{EventId: &h.job})
	if err != nil || len(lists.JSON200.Data) != 1 {
		t.Fatalf("the job's pick list: %v %+v", err, lists)
	}
	console, projector := byName["SD12 mixing console"], byName["UDX-4K32 laser projector"] // stock 2 each
	one, five := 1, 5
	// The console twice, as a list made by hand may name it: one
	// reservation of 2 covers both items.
	for _, it := range []client.PickListItemCreate{
		{PickListId: lists.JSON200.Data[0].Id, EquipmentId: &console, Quantity: &one},
		{PickListId: lists.JSON200.Data[0].Id, EquipmentId: &projector, Quantity: &five},
		{PickListId: lists.JSON200.Data[0].Id, EquipmentId: &console, Quantity: &one},
	} {
		if _, err := api.CreatePickListItemWithResponse(ctx, nil, it); err != nil {
			t.Fatal(err)
		}
	}
	// Show day: the crew has already installed one of the seeded pieces,
	// and the planner runs again; it must leave that item where it is.
	withItems := &client.ListPickListsParams{EventId: &h.job, Expand: &[]string{"items"}}
	manifest, err := api.ListPickListsWithResponse(ctx, withItems)
	if err != nil || len(manifest.JSON200.Data) != 1 || manifest.JSON200.Data[0].Items == nil {
		t.Fatalf("the job's pick list with its items: %v %+v", err, manifest)
	}
	installed := client.Installed
	for _, it := range *manifest.JSON200.Data[0].Items {
		if it.EquipmentId != nil && *it.EquipmentId != console && *it.EquipmentId != projector {
			if _, err := api.UpdatePickListItemWithResponse(ctx, it.Id, nil, client.PickListItemUpdate{Stage: &installed}); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	h.list, h.overbooked, h.doubled = lists.JSON200.Data[0].Id, projector, console
	h.measured = map[uuid.UUID]caseSize{console: {L: 49.5, W: 33, H: 18.25, Lbs: 141.5}}
	return h
}

// check asserts what a run of either version of the planner did: its
// report, the measured case, and the job's reservations: one per piece of
// the manifest, but for the projector short of stock unless forced, each
// on the same truck with at least the units its items name; the items of a
// piece without a reservation are not loaded.
func (h *rentalHouse) check(t *testing.T, rep *planReport, want planReport, forced bool) {
	t.Helper()
	if !reflect.DeepEqual(*rep, want) {
		t.Fatalf("report = %+v, want %+v", *rep, want)
	}
	ctx := context.Background()
	for id, c := range h.measured {
		eq, err := h.api.GetEquipmentWithResponse(ctx, id, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := eq.JSON200.Data
		if d.CaseLengthIn == nil || float64(*d.CaseLengthIn) != c.L || d.WeightLbs == nil || float64(*d.WeightLbs) != c.Lbs {
			t.Fatalf("equipment %s after the v1 PATCH: %+v, want %+v", id, d, c)
		}
	}
	manifest, err := h.api.ListPickListsWithResponse(ctx, &client.ListPickListsParams{EventId: &h.job, Expand: &[]string{"items"}})
	if err != nil {
		t.Fatal(err)
	}
	need, loaded := map[uuid.UUID]int{}, map[uuid.UUID]bool{}
	for _, it := range *manifest.JSON200.Data[0].Items {
		if it.EquipmentId != nil {
			need[*it.EquipmentId] += it.Quantity
			loaded[*it.EquipmentId] = loaded[*it.EquipmentId] || pastLoading(string(it.Stage))
		}
	}
	booked := map[uuid.UUID]client.Reservation{}
	for r, err := range client.All[client.Reservation](ctx, h.api.Raw.ListEquipmentReservations,
		&client.ListEquipmentReservationsParams{EventId: &h.job}) {
		if err != nil {
			t.Fatal(err)
		}
		if _, twice := booked[r.EquipmentId]; twice {
			t.Fatalf("equipment %s has two reservations", r.EquipmentId)
		}
		booked[r.EquipmentId] = r
	}
	var truck *uuid.UUID
	for eq, n := range need {
		r, ok := booked[eq]
		switch {
		case !ok && eq == h.overbooked && !forced:
			if loaded[eq] {
				t.Fatalf("the projector's items are loaded, and it has no reservation")
			}
			continue
		case !ok:
			t.Fatalf("equipment %s has no reservation", eq)
		case r.Quantity < n:
			t.Fatalf("equipment %s is booked %d, its items name %d", eq, r.Quantity, n)
		case r.VehicleId == nil || truck != nil && *r.VehicleId != *truck:
			t.Fatalf("reservation %s is on truck %v, want every one on the planner's (%v)", r.Id, r.VehicleId, truck)
		}
		truck = r.VehicleId
	}
	if wantBooked := len(need); forced && len(booked) != wantBooked || !forced && len(booked) != wantBooked-1 {
		t.Fatalf("%d reservations on the job, for %d pieces (forced %v)", len(booked), len(need), forced)
	}
}

// changePlan changes the job the way an office does between two runs of the
// planner: one more unit of a booked piece on the pick list, and another
// booked piece taken off its truck.
func (h *rentalHouse) changePlan(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	var seeded []client.Reservation
	for r, err := range client.All[client.Reservation](ctx, h.api.Raw.ListEquipmentReservations,
		&client.ListEquipmentReservationsParams{EventId: &h.job}) {
		if err != nil {
			t.Fatal(err)
		}
		if r.EquipmentId != h.doubled && r.EquipmentId != h.overbooked {
			seeded = append(seeded, r)
		}
	}
	if len(seeded) < 2 {
		t.Fatalf("%d seeded reservations on the job, want 4", len(seeded))
	}
	one := 1
	if _, err := h.api.CreatePickListItemWithResponse(ctx, nil,
		client.PickListItemCreate{PickListId: h.list, EquipmentId: &seeded[0].EquipmentId, Quantity: &one}); err != nil {
		t.Fatal(err)
	}
	var off client.ReservationUpdate
	off.Set("vehicle_id", nil)
	if _, err := h.api.UpdateEquipmentReservationWithResponse(ctx, seeded[1].Id, nil, off); err != nil {
		t.Fatal(err)
	}
}

// runTwice runs a planner, changes the plan, and runs it again: the second
// run tops up the piece with one more unit, puts the other back on the
// truck, loads the new item, and leaves the rest as it is.
func (h *rentalHouse) runTwice(t *testing.T, plan func() (*planReport, error), forced bool) {
	t.Helper()
	rep, err := plan()
	if err != nil {
		t.Fatal(err)
	}
	// The seeded pieces move from Truck 1 to the planner's truck; the one
	// the crew installed stays installed.
	want := planReport{Reserved: 1, Updated: 4, Loaded: 5, AlreadyLoaded: 1, Measured: 1, Short: map[uuid.UUID]int{h.overbooked: 3}}
	if forced {
		want.Reserved, want.Loaded = 2, 6
	}
	h.check(t, rep, want, forced)
	h.changePlan(t)
	if rep, err = plan(); err != nil {
		t.Fatal(err)
	}
	want = planReport{Updated: 2, AlreadyReserved: 3, Loaded: 1, AlreadyLoaded: 6, Measured: 1, Short: map[uuid.UUID]int{h.overbooked: 3}}
	if forced {
		want.AlreadyReserved, want.AlreadyLoaded, want.Short = 4, 7, map[uuid.UUID]int{}
	}
	h.check(t, rep, want, forced)
}

// TestTypicalIntegration runs the load planner, written with the SDK and
// with net/http alone, each against its own demo organization on a real
// listener, twice, the plan changed between the runs; every exchange is
// checked against the OpenAPI documents.
func TestTypicalIntegration(t *testing.T) {
	env := apitest.New(t)
	ctx := context.Background()
	for _, reason := range []string{"", "sub-rental from a partner house"} {
		forced := reason != ""
		t.Run(fmt.Sprintf("sdk/forced=%v", forced), func(t *testing.T) {
			h := newRentalHouse(t, env)
			legacy, err := v1.New(h.base+"/api/v1", h.legacyKey, client.HTTPClient(contractClient(t)))
			if err != nil {
				t.Fatal(err)
			}
			h.runTwice(t, func() (*planReport, error) { return loadPlan(ctx, h.api, legacy, h.job, h.measured, reason) }, forced)
		})
		t.Run(fmt.Sprintf("net/http/forced=%v", forced), func(t *testing.T) {
			h := newRentalHouse(t, env)
			p := &plainPlanner{http: contractClient(t), base: h.base, key: h.key, legacyKey: h.legacyKey}
			h.runTwice(t, func() (*planReport, error) { return p.loadPlan(ctx, h.job, h.measured, reason) }, forced)
		})
	}
}

// contractClient is an http.Client whose every exchange is validated
// against the served OpenAPI documents (v2 and v1) by the contract check.
func contractClient(t *testing.T) *http.Client {
	return &http.Client{Transport: contractCheck{t: t, next: http.DefaultTransport}}
}

type contractCheck struct {
	t    *testing.T
	next http.RoundTripper
}

func (c contractCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	res, err := c.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	apitest.CheckContract(c.t, req.Method, req.URL.RequestURI(), reqBody,
		&apitest.Response{Status: res.StatusCode, Header: res.Header, Body: body})
	return res, nil
}
