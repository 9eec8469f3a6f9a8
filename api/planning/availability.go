package planning

import (
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/equipment"
	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// Availability is how many units of one equipment record are reserved and
// free over a window, as the step function of storage/stock: the stock guard
// admits a reservation of n units for the window exactly when
// n ≤ min_available (or stock is unlimited).
type Availability struct {
	EquipmentID   uuid.UUID `json:"equipment_id"`
	StockQuantity *int      `json:"stock_quantity"`
	WindowStart   time.Time `json:"window_start"`
	WindowEnd     time.Time `json:"window_end"`
	// MinAvailable is stock minus the summed quantity of every counted
	// reservation overlapping the window (the stock guard's rule); null when
	// stock is unlimited.
	MinAvailable *int `json:"min_available"`
	// Intervals partition the window where the reserved count changes.
	Intervals                 []stock.Interval `json:"intervals"`
	ConflictingReservationIDs []uuid.UUID      `json:"conflicting_reservation_ids"`
	ConflictingEventIDs       []uuid.UUID      `json:"conflicting_event_ids"`
	// Overdue is what is checked out past its end before the window and
	// not back (stock.OverdueBefore): counted as free by min_available,
	// but not in the warehouse. Null when nothing is.
	Overdue *stock.Overdue `json:"overdue"`
}

func availabilityOf(id uuid.UUID, p stock.Profile, overdue map[uuid.UUID]stock.Overdue) Availability {
	a := Availability{EquipmentID: id, StockQuantity: p.Stock, WindowStart: p.Window.Start, WindowEnd: p.Window.End,
		MinAvailable: p.MinAvailable, Intervals: p.Intervals,
		ConflictingReservationIDs: p.ReservationIDs, ConflictingEventIDs: p.EventIDs}
	if o, ok := overdue[id]; ok {
		a.Overdue = &o
	}
	return a
}

// availability serves GET /equipment/{id}/availability?start=&end=.
func (h handlers) availability(c *fiber.Ctx) error {
	id, err := rest.PathID(c, equipment.Kind)
	if err != nil {
		return err
	}
	q := rest.NewQuery(c)
	w := window(q)
	q.Expansions()
	if err := q.Err(); err != nil {
		return err
	}
	err = h.answer(c, []uuid.UUID{id}, w, "ask about a shorter window", func(out []Availability) error {
		return rest.OK(c, out[0])
	})
	if errs.Is(err, errs.NotFound) {
		// The path names the record: the message is a detail route's.
		return errs.NotFoundOf(equipment.Kind)
	}
	return err
}

// batchAvailability serves GET /availability?equipment_id=a,b,…&start=&end=:
// the same answer for up to MaxBatch equipment records, in the order asked.
// One 422 names every bad parameter (rest.Query).
func (h handlers) batchAvailability(c *fiber.Ctx) error {
	q := rest.NewQuery(c)
	ids := equipmentIDs(q)
	for _, name := range []string{"limit", "cursor"} {
		if _, given := q.Raw(name); given {
			q.Issue(name, fmt.Sprintf("is not taken: the answer is one page holding every equipment_id asked (at most %d)", MaxBatch))
		}
	}
	w := window(q)
	q.Expansions()
	if err := q.Err(); err != nil {
		return err
	}
	return h.answer(c, ids, w, "ask about a shorter window or fewer equipment records", func(out []Availability) error {
		return rest.Page(c, out, nil)
	})
}

// answer loads the profiles of ids over w and what is overdue before w in
// one snapshot (stock.Answer), the profiles from at most MaxHolds
// reservations (a 422 on end saying ask when the window holds more), and
// sends them with send; the whole is built under the large-read bulkhead.
// Any id that names no equipment of the caller's organization makes the
// whole answer not_found, naming those ids.
func (h handlers) answer(c *fiber.Ctx, ids []uuid.UUID, w stock.Window, ask string, send func([]Availability) error) error {
	ctx := c.UserContext()
	return h.env.LargeReads.Run(ctx, func() error {
		profiles, overdue, err := stock.Answer(ctx, h.env.Conn(ctx), tenancy.OrgID(ctx), ids, w, MaxHolds)
		if err != nil {
			return tooManyHolds(err, "end", ask)
		}
		out, err := inOrder(ids, profiles, overdue)
		if err != nil {
			return err
		}
		return send(out)
	})
}

// inOrder is the answer of each id in ids, or not_found naming the ids
// profiles lacks.
func inOrder(ids []uuid.UUID, profiles map[uuid.UUID]stock.Profile, overdue map[uuid.UUID]stock.Overdue) ([]Availability, error) {
	out := make([]Availability, 0, len(ids))
	var missing []string
	for _, id := range ids {
		p, ok := profiles[id]
		if !ok {
			missing = append(missing, id.String())
			continue
		}
		out = append(out, availabilityOf(id, p, overdue))
	}
	if len(missing) > 0 {
		return nil, errs.New(errs.NotFound, fmt.Sprintf("equipment not found: %s", strings.Join(missing, ", "))).
			WithDetails(map[string]any{"missing_ids": missing})
	}
	return out, nil
}
