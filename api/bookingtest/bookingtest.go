// Package bookingtest inserts, straight into the test database, the catalogue
// rows that booking tests point at (clients, events, categories, equipment,
// vehicles), so reservation, quote, invoice and pick list tests do not depend
// on the catalogue endpoints. It also counts rows, to prove that a refused
// request wrote nothing. Only tests import it.
package bookingtest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/apitest"
)

// Rows inserts rows for one organization.
type Rows struct {
	T   testing.TB
	DB  bun.IDB
	Org uuid.UUID
}

// For returns the row helper of org in env's database.
func For(env *apitest.Env, org *apitest.Org) *Rows {
	return &Rows{T: env.T, DB: env.Svc.DB, Org: org.ID}
}

// Insert adds a row to table with organization_id and cols, returning its id.
func (r *Rows) Insert(table string, cols map[string]any) uuid.UUID {
	r.T.Helper()
	names := []string{"organization_id"}
	args := []any{r.Org}
	for k, v := range cols {
		names = append(names, k)
		args = append(args, v)
	}
	ph := strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", ")
	var id uuid.UUID
	q := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s) RETURNING id", table, strings.Join(names, ", "), ph)
	if err := r.DB.NewRaw(q, args...).Scan(context.Background(), &id); err != nil {
		r.T.Fatalf("insert %s: %v", table, err)
	}
	return id
}

// Client inserts a client.
func (r *Rows) Client(name string) uuid.UUID {
	r.T.Helper()
	return r.Insert("clients", map[string]any{"name": name})
}

// Event inserts an event over the first days of May 2026.
func (r *Rows) Event(name string) uuid.UUID {
	r.T.Helper()
	start := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	return r.Insert("events", map[string]any{"name": name, "venue": "Hall " + name,
		"start_date": start, "end_date": start.Add(72 * time.Hour)})
}

// Category inserts an equipment category.
func (r *Rows) Category(name, color string) uuid.UUID {
	r.T.Helper()
	return r.Insert("equipment_categories", map[string]any{"name": name, "color": color})
}

// Equipment inserts equipment with a stock (nil: unlimited) and case data.
func (r *Rows) Equipment(name string, stock *int, category *uuid.UUID) uuid.UUID {
	r.T.Helper()
	return r.Insert("equipment", map[string]any{"name": name, "stock_quantity": stock, "category_id": category,
		"brand": "Acme", "daily_rate": "125.50", "case_length_in": 48.0, "case_width_in": 24.0,
		"case_height_in": 30.0, "weight_lbs": 180.5})
}

// Vehicle inserts a vehicle with a status (available, in_use, ...).
func (r *Rows) Vehicle(name, status string) uuid.UUID {
	r.T.Helper()
	return r.Insert("vehicles", map[string]any{"name": name, "status": status, "interior_length_inches": 312})
}

// Count returns how many rows of table belong to the organization.
func (r *Rows) Count(table string) int {
	r.T.Helper()
	n, err := r.DB.NewSelect().Table(table).Where("organization_id = ?", r.Org).Count(context.Background())
	if err != nil {
		r.T.Fatalf("count %s: %v", table, err)
	}
	return int(n)
}

// Stock returns a pointer to n (for Equipment).
func Stock(n int) *int { return &n }
