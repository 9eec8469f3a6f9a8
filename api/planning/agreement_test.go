package planning_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/reservations"
	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// agreementSeed is the property test's seed; AVAILABILITY_SEED overrides it
// to replay a reported failure or explore other cases.
const agreementSeed = 20261123

// rawReservation is one generated reservation, in hours from the origin.
type rawReservation struct {
	from, to, qty int
	status        string
}

func (r rawReservation) String() string {
	return fmt.Sprintf("[%d,%d)×%d %s", r.from, r.to, r.qty, r.status)
}

var origin = time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)

func hour(h int) time.Time { return origin.Add(time.Duration(h) * time.Hour) }

// TestAvailabilityAgreesWithTheGuard is the property test: for many random
// reservation sets of one equipment record (every status, touching and
// overlapping windows, stock sometimes below what is held) and many random
// windows, the availability answer's min_available is exactly what the stock
// guard in block mode admits: a reservation of min_available units is
// written, one of min_available + 1 is refused with overbook_blocked (whose
// details report the same figure). Each answer's intervals are also checked
// against a brute-force count over the raw rows. On failure the seed, the
// round, the window and the reservation set are reported.
func TestAvailabilityAgreesWithTheGuard(t *testing.T) {
	seed := uint64(agreementSeed)
	if s := os.Getenv("AVAILABILITY_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("AVAILABILITY_SEED: %v", err)
		}
		seed = v
	}
	db := pgtest.Open(t)
	ctx := context.Background()
	org, err := tenancy.CreateOrganization(ctx, db, "Agreement", nil)
	if err != nil {
		t.Fatal(err)
	}
	const rounds, windowsPerRound = 40, 6
	for round := range rounds {
		rng := rand.New(rand.NewPCG(seed, uint64(round)))
		set, stockQty := generate(rng)
		windows := make([]stock.Window, windowsPerRound)
		for i := range windows {
			a := rng.IntN(60) - 6
			windows[i] = stock.Window{Start: hour(a), End: hour(a + 1 + rng.IntN(30))}
		}
		report := func(w stock.Window, format string, args ...any) {
			t.Helper()
			t.Fatalf("seed %d round %d: stock %d, reservations %v, window [%d,%d): %s",
				seed, round, stockQty, set, int(w.Start.Sub(origin).Hours()), int(w.End.Sub(origin).Hours()), fmt.Sprintf(format, args...))
		}
		// Each round runs in a transaction that is rolled back, so rounds
		// do not see each other's rows.
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			eq := insertEquipment(t, ctx, tx, org.ID, stockQty)
			for _, r := range set {
				insertReservation(t, ctx, tx, org.ID, eq, r)
			}
			for _, w := range windows {
				profiles, err := stock.Availability(ctx, tx, org.OrgID(), []uuid.UUID{eq}, w, 0)
				if err != nil {
					t.Fatal(err)
				}
				p := profiles[eq]
				if msg := checkSteps(p, w, set); msg != "" {
					report(w, "%s", msg)
				}
				minAvail := *p.MinAvailable
				if minAvail >= 1 {
					if err := tryReserve(ctx, tx, org.ID, eq, w, minAvail); err != nil {
						report(w, "min_available %d but the guard refused that many: %v", minAvail, err)
					}
				}
				over := max(minAvail+1, 1)
				err = tryReserve(ctx, tx, org.ID, eq, w, over)
				if !errs.Is(err, errs.OverbookBlocked) {
					report(w, "min_available %d but the guard did not refuse %d: %v", minAvail, over, err)
				}
				if d, _ := errs.As(err).Details.(*reservations.OverbookDetails); d == nil || d.Available != minAvail {
					report(w, "overbook_blocked details %+v, want available %d", errs.As(err).Details, minAvail)
				}
			}
			return errRollback
		})
		if !errors.Is(err, errRollback) {
			t.Fatal(err)
		}
	}
}

var errRollback = errors.New("rollback")

// generate makes 0–24 reservations over hours 0–48 on a grid of 6 hours, so
// touching and identical windows are common, with every status; stock is
// 0–12.
func generate(rng *rand.Rand) ([]rawReservation, int) {
	statuses := []string{"reserved", "checked_out", "returned", "cancelled"}
	set := make([]rawReservation, rng.IntN(25))
	for i := range set {
		from := 6 * rng.IntN(8)
		set[i] = rawReservation{from: from, to: from + 6*(1+rng.IntN(4)), qty: 1 + rng.IntN(4), status: statuses[rng.IntN(len(statuses))]}
	}
	return set, rng.IntN(13)
}

// tryReserve asks the guard (block mode) for qty units over w inside a
// savepoint that is always rolled back; it returns the guard's error.
func tryReserve(ctx context.Context, tx bun.Tx, org uuid.UUID, eq uuid.UUID, w stock.Window, qty int) error {
	var guardErr error
	err := tx.RunInTx(ctx, nil, func(ctx context.Context, sp bun.Tx) error {
		_, _, guardErr = reservations.Create(ctx, sp, tenancy.Tenant{Org: tenancy.OrganizationID{UUID: org}, StockGuard: tenancy.StockGuardBlock},
			&reservations.Reservation{EquipmentID: eq, StartDate: w.Start, EndDate: w.End, Quantity: qty,
				ReservationStatus: reservations.StatusReserved}, reservations.Override{})
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		return err
	}
	return guardErr
}

// checkSteps compares the profile with a brute-force count over the raw
// rows: the intervals partition w, consecutive intervals differ, each
// interval's reserved is the count at its start and is constant inside it
// (checked on the 1-hour grid), and min_available is stock − the summed
// quantity of every counted row overlapping w (the stock guard's rule).
func checkSteps(p stock.Profile, w stock.Window, set []rawReservation) string {
	countAt := func(t time.Time) int {
		n := 0
		for _, r := range set {
			if (r.status == "reserved" || r.status == "checked_out") && !hour(r.from).After(t) && t.Before(hour(r.to)) {
				n += r.qty
			}
		}
		return n
	}
	if len(p.Intervals) == 0 || !p.Intervals[0].Start.Equal(w.Start) || !p.Intervals[len(p.Intervals)-1].End.Equal(w.End) {
		return fmt.Sprintf("intervals %v do not span the window", p.Intervals)
	}
	peak := 0
	var out []string
	for i, iv := range p.Intervals {
		if i > 0 && (!iv.Start.Equal(p.Intervals[i-1].End) || iv.Reserved == p.Intervals[i-1].Reserved) {
			return fmt.Sprintf("interval %d does not follow a change: %+v", i, p.Intervals)
		}
		for t := iv.Start; t.Before(iv.End); t = t.Add(time.Hour) {
			if n := countAt(t); n != iv.Reserved {
				out = append(out, fmt.Sprintf("at hour %d reserved %d, brute force %d", int(t.Sub(origin).Hours()), iv.Reserved, n))
			}
		}
		if *iv.Available != *p.Stock-iv.Reserved {
			out = append(out, fmt.Sprintf("interval %d available %d, stock %d reserved %d", i, *iv.Available, *p.Stock, iv.Reserved))
		}
		peak = max(peak, iv.Reserved)
	}
	sum := 0
	for _, r := range set {
		if (r.status == "reserved" || r.status == "checked_out") && hour(r.from).Before(w.End) && w.Start.Before(hour(r.to)) {
			sum += r.qty
		}
	}
	if *p.MinAvailable != *p.Stock-sum {
		out = append(out, fmt.Sprintf("min_available %d, stock %d, summed overlapping %d", *p.MinAvailable, *p.Stock, sum))
	}
	if p.Peak != peak {
		out = append(out, fmt.Sprintf("peak %d, steps peak %d", p.Peak, peak))
	}
	return strings.Join(out, "; ")
}

func insertEquipment(t *testing.T, ctx context.Context, db bun.IDB, org uuid.UUID, stockQty int) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	if err := db.NewRaw("INSERT INTO equipment (organization_id, name, stock_quantity) VALUES (?, 'Par can', ?) RETURNING id",
		org, stockQty).Scan(ctx, &id); err != nil {
		t.Fatal(err)
	}
	return id
}

func insertReservation(t *testing.T, ctx context.Context, db bun.IDB, org uuid.UUID, eq uuid.UUID, r rawReservation) {
	t.Helper()
	if _, err := db.NewRaw(`INSERT INTO equipment_reservations
		(organization_id, equipment_id, start_date, end_date, quantity, reservation_status) VALUES (?, ?, ?, ?, ?, ?)`,
		org, eq, hour(r.from), hour(r.to), r.qty, r.status).Exec(ctx); err != nil {
		t.Fatal(err)
	}
}
