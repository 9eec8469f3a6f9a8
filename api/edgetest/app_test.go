package edgetest

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/clients"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// testRoutes are extra v2 routes for the cases no resource offers yet: a
// write that then fails with a 5xx, a write followed by a refused statement,
// and a DELETE. They are not in the OpenAPI document, so tests send them
// with viaApp.
type testRoutes struct {
	env  rest.Env
	runs atomic.Int64 // executions of POST /edge-test/boom
}

// register adds the routes; env.DB is filled in once the app is built.
func (tr *testRoutes) register(v2 fiber.Router) {
	v2.Post("/edge-test/boom", func(c *fiber.Ctx) error {
		tr.runs.Add(1)
		ctx := c.UserContext()
		p := tenancy.MustFromContext(ctx)
		var ch storage.Changes
		ch.Set("name", "written, then the request fails")
		if _, err := clients.Create(ctx, tr.env.Conn(ctx), p.Tenant(), ch); err != nil {
			return err
		}
		return errs.Wrap(errs.New(errs.Internal, "boom"), "internal error")
	})
	// A write followed by a statement the database refuses (a reference to
	// an organization that does not exist): 422 from database.Error.
	v2.Post("/edge-test/conflict", func(c *fiber.Ctx) error {
		ctx := c.UserContext()
		p := tenancy.MustFromContext(ctx)
		var ch storage.Changes
		ch.Set("name", "written before a refused statement")
		db := tr.env.Conn(ctx)
		if _, err := clients.Create(ctx, db, p.Tenant(), ch); err != nil {
			return err
		}
		// A reference to a category that does not exist: 422 on category_id.
		_, err := db.ExecContext(ctx, "INSERT INTO equipment (organization_id, name, category_id) VALUES (?, 'orphan', gen_random_uuid())",
			p.OrganizationID)
		return database.Error(err)
	})
	v2.Delete("/edge-test/clients/:id", func(c *fiber.Ctx) error {
		id, err := rest.PathID(c, clients.Kind)
		if err != nil {
			return err
		}
		ctx := c.UserContext()
		if err := storage.Delete[clients.Client](ctx, tr.env.Conn(ctx), tenancy.OrgID(ctx), id, clients.Kind); err != nil {
			return err
		}
		return rest.NoContent(c)
	})
}

// newApp starts the real app (real Redis unless opts say otherwise) with the
// test routes. Edge-store calls get 1 s instead of the production 50 ms: on
// a starved test machine a slow reply would otherwise fail open or refuse a
// keyed write, which these tests do not study (platform/edge checks the
// 50 ms bound; the multi-process test runs the production setting).
func newApp(t *testing.T, opts ...apitest.Option) (*apitest.Env, *testRoutes) {
	t.Helper()
	tr := &testRoutes{}
	patient := func(_ *config.Config, o *server.Options) { o.RedisTimeout = time.Second }
	env := apitest.New(t, append([]apitest.Option{patient, apitest.WithRoutes(tr.register)}, opts...)...)
	tr.env.DB = env.Svc.DB
	return env, tr
}

// count returns the number of rows of table in org.
func count(t *testing.T, env *apitest.Env, table string, org uuid.UUID) int {
	t.Helper()
	n, err := env.Svc.DB.NewSelect().TableExpr(table).Where("organization_id = ?", org).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}
