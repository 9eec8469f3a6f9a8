package demo

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/tenancy"
)

// stockGuard checks that Refresh's move oversells nothing, by the stock
// guard's own rule (stock.Short: each reservation's units plus those of
// every hold overlapping it within stock). The demo seeds one shortage on
// purpose (the breakout line, overbooked, makes the console short), so the
// rule is not "nothing short" but "nothing short that was not before": a
// reservation of the organization's own on the week the demo moves onto
// becomes short, and the move is refused.
type stockGuard struct {
	org    tenancy.OrganizationID
	checks []stockCheck
}

// stockCheck is one limited equipment record the move touches: its stock,
// the span of its moved lines' windows before and after the move, and the
// reservations short there before it.
type stockCheck struct {
	equipment uuid.UUID
	stock     int
	span      stock.Window
	before    map[uuid.UUID]bool
}

// lockStock locks the equipment of lines, in id order as every multi-row
// lock of the service takes them, so that no reservation of it is written
// while the move is checked, and reads what is short before the move.
func lockStock(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, lines []movedLine, shift time.Duration) (*stockGuard, error) {
	g := &stockGuard{org: org}
	for _, eq := range sortedEquipment(lines) {
		limit, found, err := stock.LockEquipment(ctx, tx, org, eq)
		if err != nil {
			return nil, err
		}
		if !found || limit == nil {
			continue // gone, or unlimited: nothing to oversell
		}
		c := stockCheck{equipment: eq, stock: *limit}
		for _, l := range lines {
			if l.EquipmentID != eq {
				continue
			}
			for _, w := range []stock.Window{{Start: l.Start, End: l.End}, {Start: l.Start.Add(shift), End: l.End.Add(shift)}} {
				if c.span.Start.IsZero() || w.Start.Before(c.span.Start) {
					c.span.Start = w.Start
				}
				if w.End.After(c.span.End) {
					c.span.End = w.End
				}
			}
		}
		if c.before, err = shortIn(ctx, tx, org, c); err != nil {
			return nil, err
		}
		g.checks = append(g.checks, c)
	}
	return g, nil
}

// newlyShort returns the name of the first equipment record on which a
// reservation is short after the move that was not before it; "" when
// none is.
func (g *stockGuard) newlyShort(ctx context.Context, tx bun.IDB) (string, error) {
	for _, c := range g.checks {
		after, err := shortIn(ctx, tx, g.org, c)
		if err != nil {
			return "", err
		}
		for id := range after {
			if !c.before[id] {
				var name string
				err := tx.NewRaw(`SELECT name FROM equipment WHERE organization_id = ? AND id = ?`, g.org.UUID, c.equipment).Scan(ctx, &name)
				return name, err
			}
		}
	}
	return "", nil
}

// shortIn returns the reservations of c's equipment holding stock during
// its span that the guard's rule finds short (stock.ShortageIn).
func shortIn(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, c stockCheck) (map[uuid.UUID]bool, error) {
	s, err := stock.ShortageIn(ctx, tx, org, c.equipment, c.stock, c.span)
	if err != nil || s == nil {
		return nil, err
	}
	short := map[uuid.UUID]bool{}
	for _, id := range s.ConflictingReservationIDs {
		short[id] = true
	}
	return short, nil
}
