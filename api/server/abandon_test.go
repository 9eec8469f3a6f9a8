package server_test

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// TestAbandonedWritesRollBack: a write still running when the shutdown
// timeout passes is cancelled (server.Drain.Abandon), not left to commit in
// PostgreSQL after the process has gone, unanswered and unlogged. The write
// here waits on a row lock the test holds, and the lock is released only
// after RunWith has returned.
func TestAbandonedWritesRollBack(t *testing.T) {
	var env *apitest.Env
	// Nothing but the abandonment may end the write within the test's
	// waits: no request deadline, no statement_timeout (a pooler's URL
	// carries none and may take no startup parameter).
	noTimeouts := func(cfg *config.Config, _ *server.Options) {
		cfg.RequestTimeout = time.Hour
		if cfg.DatabasePooler != database.PoolerTransaction {
			u, err := url.Parse(cfg.DatabaseURL)
			if err != nil {
				t.Fatal(err)
			}
			q := u.Query()
			q.Set("statement_timeout", "3600000")
			u.RawQuery = q.Encode()
			cfg.DatabaseURL = u.String()
		}
	}
	env = apitest.New(t, noTimeouts, apitest.WithRoutes(func(v2 fiber.Router) {
		v2.Post("/late/:id", func(c *fiber.Ctx) error {
			ctx := c.UserContext()
			_, err := env.Svc.DB.NewRaw("UPDATE clients SET name = 'late' WHERE organization_id = ? AND id = ?",
				tenancy.OrgID(ctx), c.Params("id")).Exec(ctx)
			if err != nil {
				return err
			}
			return c.SendStatus(fiber.StatusNoContent)
		})
	}))
	org := env.NewOrg("Held")
	id := uuid.New()
	if _, err := env.Svc.DB.NewRaw("INSERT INTO clients (id, organization_id, name) VALUES (?, ?, 'early')", id, org.ID).
		Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lock, err := env.Svc.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback()
	if _, err := lock.ExecContext(ctx, "SELECT 1 FROM clients WHERE organization_id = ? AND id = ? FOR UPDATE", org.ID, id); err != nil {
		t.Fatal(err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() {
		ran <- server.RunWith(runCtx, env.Svc.App, ln, server.Shutdown{Drain: env.Svc.Drain, Timeout: 200 * time.Millisecond})
	}()
	go func() {
		req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+"/api/v2/late/"+id.String(), nil)
		req.Header.Set("Authorization", "Bearer "+org.Key)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	waitForLateWrites(t, env, "the write waiting on the lock", 1)

	stop() // as SIGTERM: no drain delay, 200 ms for in-flight requests
	select {
	case <-ran:
	case <-time.After(30 * time.Second):
		t.Fatal("RunWith did not return")
	}
	// While the lock is still held the statement can only end by being
	// cancelled. Behind PgBouncer the cancel request goes out as pgx
	// closes the connection, in the background, moments after RunWith has
	// returned: releasing the lock before it arrived would let the write
	// commit (docs/decisions.md, "Readiness, draining and the database at
	// scale").
	waitForLateWrites(t, env, "the abandoned write cancelled while the lock is held", 0)
	if err := lock.Rollback(); err != nil { // the lock goes only now
		t.Fatal(err)
	}
	var name string
	if err := env.Svc.DB.NewRaw("SELECT name FROM clients WHERE organization_id = ? AND id = ?", org.ID, id).Scan(ctx, &name); err != nil {
		t.Fatal(err)
	}
	if name != "early" {
		t.Fatalf("the abandoned write committed after the shutdown: name %q", name)
	}
}

// waitForLateWrites waits until want statements of the late write run in
// PostgreSQL, or fails after 20 s.
func waitForLateWrites(t *testing.T, env *apitest.Env, what string, want int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var n int
		if err := env.Svc.DB.NewRaw(`SELECT count(*) FROM pg_stat_activity
			WHERE state = 'active' AND query LIKE '%SET name = ''late'' WHERE%'`).Scan(context.Background(), &n); err != nil {
			t.Fatal(err)
		}
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d such statements after 20 s", what, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
