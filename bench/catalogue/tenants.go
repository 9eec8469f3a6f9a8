package catalogue

import (
	"context"
	"fmt"
	"strconv"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// SeedTenants creates n organizations with the default (real) v2 rate
// limit, a live key each and perOrg clients each (one INSERT for all), so
// load spread over them meets the limiter as production does: many small
// windows, each organization within its limit.
func SeedTenants(ctx context.Context, db *bun.DB, n, perOrg int) ([]Org, error) {
	orgs := make([]Org, n)
	ids := make([]uuid.UUID, n)
	for i := range orgs {
		o, err := tenancy.CreateOrganization(ctx, db, "bench tenant "+strconv.Itoa(i), nil)
		if err != nil {
			return nil, err
		}
		k, err := tenancy.CreateKey(ctx, db, tenancy.NewKey{OrganizationID: o.ID, Name: "bench",
			Scopes: tenancy.AllScopes, Mode: apikey.Live})
		if err != nil {
			return nil, err
		}
		orgs[i], ids[i] = Org{ID: o.ID, Key: k.Secret, Clients: perOrg}, o.ID
	}
	if _, err := db.NewRaw(`INSERT INTO clients (organization_id, name, email, phone, city, demo)
		SELECT o, 'Client ' || i || ' Tenant Productions', 'booking' || i || '@example.com',
		       '+1-555-' || lpad(i::text, 4, '0'), 'Austin', false
		FROM unnest(?::uuid[]) AS o, generate_series(1, ?) AS s(i)`, pgdialect.Array(ids), perOrg).Exec(ctx); err != nil {
		return nil, fmt.Errorf("seed tenant clients: %w", err)
	}
	var rows []struct {
		OrganizationID uuid.UUID `bun:"organization_id"`
		ID             uuid.UUID `bun:"id"`
	}
	if err := db.NewRaw(`SELECT organization_id, id FROM clients WHERE organization_id = ANY(?::uuid[])
		ORDER BY organization_id, created_at, id`, pgdialect.Array(ids)).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	index := map[uuid.UUID]int{}
	for i, id := range ids {
		index[id] = i
	}
	for _, r := range rows {
		o := &orgs[index[r.OrganizationID]]
		o.ClientIDs = append(o.ClientIDs, r.ID)
	}
	return orgs, nil
}

// SeedManifest gives org a pick list of items lines, each naming its own
// equipment record with case dimensions, weight and a daily rate, spread
// over 12 categories: the load planner's manifest, read with
// ?expand=items,equipment,category. It returns the pick list's id.
func SeedManifest(ctx context.Context, db *bun.DB, org uuid.UUID, items int) (uuid.UUID, error) {
	var pl uuid.UUID
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewRaw(`INSERT INTO equipment_categories (organization_id, name, color)
			SELECT ?, 'Category ' || i, '#' || lpad(to_hex(i * 1048573 % 16777216), 6, '0')
			FROM generate_series(1, 12) AS s(i)`, org).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewRaw(`INSERT INTO equipment (organization_id, name, brand, category_id, stock_quantity,
			daily_rate, case_length_in, case_width_in, case_height_in, weight_lbs, case_type)
			SELECT ?, 'Fixture ' || i, 'Brand ' || (i % 7), c.ids[1 + i % 12], 1 + i % 9,
			       (25 + i % 400) + (i % 100) / 100.0, 24 + i % 30, 18 + i % 12, 12 + i % 20, 30.5 + i % 90, 'road_case'
			FROM generate_series(1, ?) AS s(i),
			     (SELECT array_agg(id ORDER BY name) AS ids FROM equipment_categories WHERE organization_id = ?) AS c`,
			org, items, org).Exec(ctx); err != nil {
			return err
		}
		if err := tx.NewRaw(`INSERT INTO pick_lists (organization_id, name) VALUES (?, 'Manifest') RETURNING id`,
			org).Scan(ctx, &pl); err != nil {
			return err
		}
		_, err := tx.NewRaw(`INSERT INTO pick_list_items (organization_id, pick_list_id, equipment_id, quantity, notes)
			SELECT ?, ?, e.id, 1 + row_number() OVER (ORDER BY e.created_at) % 4, 'case ' || e.name
			FROM equipment AS e WHERE e.organization_id = ?`, org, pl, org).Exec(ctx)
		return err
	})
	if err != nil {
		return uuid.Nil, fmt.Errorf("seed manifest: %w", err)
	}
	return pl, nil
}
