package equipment_test

import (
	"context"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/equipment"
)

const (
	path       = "/api/v2/equipment"
	categories = "/api/v2/equipment_categories"
)

// storeCategory creates a category of o through the store.
func storeCategory(t *testing.T, env *apitest.Env, o *apitest.Org, name string, color *string) string {
	t.Helper()
	var ch storage.Changes
	ch.Set("name", name)
	ch.Set("color", color)
	c, err := equipment.CreateCategory(context.Background(), env.Svc.DB, o.Tenant(), ch)
	if err != nil {
		t.Fatal(err)
	}
	return c.ID.String()
}

// storeEquipment creates equipment of o (in category, when not empty).
func storeEquipment(t *testing.T, env *apitest.Env, o *apitest.Org, name, category string) string {
	t.Helper()
	var ch storage.Changes
	ch.Set("name", name)
	if category != "" {
		ch.Set("category_id", category)
	}
	e, err := equipment.Create(context.Background(), env.Svc.DB, o.Tenant(), ch)
	if err != nil {
		t.Fatal(err)
	}
	return e.ID.String()
}

func ptr(s string) *string { return &s }
