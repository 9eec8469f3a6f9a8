package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// plainPlanner is loadPlan (example_loadplan_test.go) written with net/http
// and encoding/json alone, doing what the SDK does for it: authentication,
// an Idempotency-Key per write, retries on 429/503 honouring Retry-After,
// the error envelope, and the cursor loop. It exists to compare the two.
type plainPlanner struct {
	http                 *http.Client
	base, key, legacyKey string
}

type apiError struct {
	Status int
	Code   string          `json:"code"`
	Detail json.RawMessage `json:"details"`
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s", e.Status, e.Code) }

// call sends one request and decodes a 2xx answer into out.
func (p *plainPlanner) call(ctx context.Context, key, method, path string, body, out any) error {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return err
		}
	}
	idem := uuid.NewString()
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, method, p.base+path, bytes.NewReader(raw))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+key)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", idem)
		}
		res, err := p.http.Do(req)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return err
		}
		if (res.StatusCode == 429 || res.StatusCode == 503) && attempt < 4 {
			wait := time.Duration(250<<attempt) * time.Millisecond
			if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil {
				wait = time.Duration(s) * time.Second
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
			continue
		}
		if res.StatusCode >= 400 {
			var env struct{ Error apiError }
			_ = json.Unmarshal(data, &env)
			env.Error.Status = res.StatusCode
			return &env.Error
		}
		if out == nil {
			return nil
		}
		return json.Unmarshal(data, out)
	}
}

// all follows the cursors of a list, calling each for every record.
func all[T any](ctx context.Context, p *plainPlanner, path string, q url.Values, each func(T)) error {
	for {
		var page struct {
			Data       []T
			Pagination struct {
				NextCursor *string `json:"next_cursor"`
				HasMore    bool    `json:"has_more"`
			}
		}
		if err := p.call(ctx, p.key, http.MethodGet, path+"?"+q.Encode(), nil, &page); err != nil {
			return err
		}
		for _, r := range page.Data {
			each(r)
		}
		if !page.Pagination.HasMore || page.Pagination.NextCursor == nil {
			return nil
		}
		q.Set("cursor", *page.Pagination.NextCursor)
	}
}

type plainVehicle struct {
	ID            uuid.UUID `json:"id"`
	MaxPayloadLbs *int      `json:"max_payload_lbs"`
}

type plainPickList struct {
	Items []struct {
		ID        uuid.UUID `json:"id"`
		Quantity  int       `json:"quantity"`
		Stage     string    `json:"stage"`
		Equipment *struct {
			ID   uuid.UUID `json:"id"`
			Name string    `json:"name"`
		} `json:"equipment"`
	} `json:"items"`
}

func (p *plainPlanner) loadPlan(ctx context.Context, jobID uuid.UUID, measured map[uuid.UUID]caseSize, overbookReason string) (*planReport, error) {
	var job struct {
		Data struct {
			StartDate time.Time `json:"start_date"`
			EndDate   time.Time `json:"end_date"`
		}
	}
	if err := p.call(ctx, p.key, http.MethodGet, "/api/v2/jobs/"+jobID.String(), nil, &job); err != nil {
		return nil, err
	}
	var truck *plainVehicle
	err := all(ctx, p, "/api/v2/vehicles", url.Values{}, func(v plainVehicle) {
		if truck == nil || v.MaxPayloadLbs != nil && (truck.MaxPayloadLbs == nil || *v.MaxPayloadLbs > *truck.MaxPayloadLbs) {
			truck = &v
		}
	})
	if err != nil {
		return nil, err
	}
	if truck == nil {
		return nil, fmt.Errorf("no assignable vehicle")
	}
	var lists []plainPickList
	q := url.Values{"event_id": {jobID.String()}, "expand": {"items,equipment,category"}}
	if err := all(ctx, p, "/api/v2/pick_lists", q, func(l plainPickList) { lists = append(lists, l) }); err != nil {
		return nil, err
	}
	// One reservation per piece of equipment, for the quantity of all its
	// items (a list made by hand may name one piece twice).
	type piece struct {
		name     string
		quantity int
		items    []uuid.UUID
		stages   []string
	}
	pieces, order := map[uuid.UUID]*piece{}, []uuid.UUID{}
	for _, list := range lists {
		for _, item := range list.Items {
			if item.Equipment == nil {
				continue // a service line, not a case
			}
			pc := pieces[item.Equipment.ID]
			if pc == nil {
				pc = &piece{name: item.Equipment.Name}
				pieces[item.Equipment.ID], order = pc, append(order, item.Equipment.ID)
			}
			pc.quantity += item.Quantity
			pc.items, pc.stages = append(pc.items, item.ID), append(pc.stages, item.Stage)
		}
	}
	rep := &planReport{Short: map[uuid.UUID]int{}}
	for slot, id := range order {
		pc := pieces[id]
		body := map[string]any{
			"equipment_id": id, "event_id": jobID, "vehicle_id": truck.ID,
			"truck_position": fmt.Sprintf("%s, slot %d", pc.name, slot+1),
			"start_date":     job.Data.StartDate, "end_date": job.Data.EndDate, "quantity": pc.quantity}
		onTruck, err := p.reserve(ctx, rep, id, body, overbookReason)
		if err != nil {
			return nil, err
		}
		if !onTruck {
			continue // not enough stock and no reason to force: its items are not loaded
		}
		for i, item := range pc.items {
			if pastLoading(pc.stages[i]) {
				rep.AlreadyLoaded++
				continue
			}
			if err := p.call(ctx, p.key, http.MethodPatch, "/api/v2/pick_list_items/"+item.String(),
				map[string]any{"stage": "loaded"}, nil); err != nil {
				return nil, err
			}
			rep.Loaded++
		}
	}
	for id, c := range measured {
		if err := p.call(ctx, p.legacyKey, http.MethodPatch, "/api/v1/equipment/"+id.String(), map[string]any{
			"case_length_in": c.L, "case_width_in": c.W, "case_height_in": c.H, "weight_lbs": c.Lbs, "case_type": "road_case"}, nil); err != nil {
			return nil, err
		}
		rep.Measured++
	}
	return rep, nil
}

// reserve creates the reservation body describes or, when the job has one
// already (409 duplicate_record), reads it and updates it if it has fewer
// units than body or is not on body's truck. It reports whether the units
// are on the truck.
func (p *plainPlanner) reserve(ctx context.Context, rep *planReport, id uuid.UUID, body map[string]any, overbookReason string) (bool, error) {
	written, err := p.forceIfShort(ctx, rep, id, http.MethodPost, "/api/v2/equipment_reservations", body, overbookReason)
	if err == nil {
		if written {
			rep.Reserved++
		}
		return written, nil
	}
	apiErr, _ := err.(*apiError)
	if apiErr == nil || apiErr.Code != "duplicate_record" {
		return false, err
	}
	var dup struct {
		ExistingID *uuid.UUID `json:"existing_id"`
	}
	if derr := json.Unmarshal(apiErr.Detail, &dup); derr != nil || dup.ExistingID == nil {
		return false, err
	}
	var existing struct {
		Data struct {
			Quantity  int        `json:"quantity"`
			VehicleID *uuid.UUID `json:"vehicle_id"`
		}
	}
	path := "/api/v2/equipment_reservations/" + dup.ExistingID.String()
	if err := p.call(ctx, p.key, http.MethodGet, path, nil, &existing); err != nil {
		return false, err
	}
	r, quantity, truck := existing.Data, body["quantity"].(int), body["vehicle_id"].(uuid.UUID)
	if r.Quantity >= quantity && r.VehicleID != nil && *r.VehicleID == truck {
		rep.AlreadyReserved++
		return true, nil
	}
	update := map[string]any{"vehicle_id": truck, "truck_position": body["truck_position"]}
	if r.Quantity < quantity {
		update["quantity"] = quantity // never fewer: the office may have booked spares
	}
	written, err = p.forceIfShort(ctx, rep, id, http.MethodPatch, path, update, overbookReason)
	if written {
		rep.Updated++
	}
	return written, err
}

// forceIfShort sends a reservation's create or update; when the stock guard
// blocks it, it records the deficit and, given a reason, sends it forced.
func (p *plainPlanner) forceIfShort(ctx context.Context, rep *planReport, id uuid.UUID, method, path string, body map[string]any, overbookReason string) (bool, error) {
	err := p.call(ctx, p.key, method, path, body, nil)
	apiErr, _ := err.(*apiError)
	if apiErr == nil || apiErr.Code != "overbook_blocked" {
		return err == nil, err
	}
	var d struct{ Deficit int }
	if err := json.Unmarshal(apiErr.Detail, &d); err != nil {
		return false, err
	}
	rep.Short[id] = d.Deficit
	if overbookReason == "" {
		return false, nil
	}
	body["force_overbook"], body["overbook_reason"] = true, overbookReason
	err = p.call(ctx, p.key, method, path, body, nil)
	return err == nil, err
}
