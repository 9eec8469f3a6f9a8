package catalogue

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestBaselineMatchesApp serves the real app and the baseline on loopback
// and the PostgreSQL-JSON server (PGJSON), and checks that they answer every
// benchmarked request with the same JSON values, cursor included (decoded
// and compared: PGJSON's bytes differ in spacing): the comparison is only
// fair if all do the same work.
func TestBaselineMatchesApp(t *testing.T) {
	env := apitest.New(t)
	ctx := context.Background()
	org, err := SeedOrg(ctx, env.Svc.DB, "bench compare", 60, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	other, err := SeedOrg(ctx, env.Svc.DB, "bench other", 5, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	app := serve(t, func(ln net.Listener) error { return env.Svc.App.Listener(ln) })

	pool, err := OpenPool(ctx, env.Cfg.DatabaseURL, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	key, err := CursorKey(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	b := &Baseline{Pool: pool, Cursors: storage.NewCursors(key)}
	srv := &http.Server{Handler: b.Handler()}
	base := serve(t, srv.Serve)
	t.Cleanup(func() { _ = srv.Close() })
	pj := &PGJSON{Pool: pool, Cursors: storage.NewCursors(key)}
	pjSrv := &http.Server{Handler: pj.Handler()}
	pjBase := serve(t, pjSrv.Serve)
	t.Cleanup(func() { _ = pjSrv.Close() })

	client := NewClient(4)
	chain := Server{Name: "chain", Base: app, Header: http.Header{"Authorization": {"Bearer " + org.Key}}}
	bare := Server{Name: "baseline", Base: base, Header: http.Header{HeaderOrg: {org.ID.String()}}}
	inPG := Server{Name: "pgjson", Base: pjBase, Header: http.Header{HeaderOrg: {org.ID.String()}}}
	for _, path := range []string{
		"/api/v2/clients/" + org.ClientIDs[0].String(),
		"/api/v2/clients/" + org.ClientIDs[59].String(),
		"/api/v2/clients",
		"/api/v2/clients?limit=25",
		"/api/v2/clients?limit=100",
		"/api/v2/clients?limit=1",
		"/api/v2/clients?search=" + SearchCommon,
		"/api/v2/clients?limit=3&search=LUMEN",
		"/api/v2/clients?search=booking7@",
		"/api/v2/clients?search=nothing-matches",
	} {
		t.Run(path, func(t *testing.T) {
			for _, other := range []Server{bare, inPG} {
				if err := SameAnswer(ctx, client, chain, other, path); err != nil {
					t.Fatal(err)
				}
			}
		})
	}

	// The check itself must see a difference: another organization's view.
	otherBare := Server{Name: "baseline other org", Base: base, Header: http.Header{HeaderOrg: {other.ID.String()}}}
	if err := SameAnswer(ctx, client, chain, otherBare, "/api/v2/clients"); err == nil {
		t.Fatal("SameAnswer found no difference between two organizations' lists")
	}
	otherPG := Server{Name: "pgjson other org", Base: pjBase, Header: http.Header{HeaderOrg: {other.ID.String()}}}
	if err := SameAnswer(ctx, client, chain, otherPG, "/api/v2/clients"); err == nil {
		t.Fatal("SameAnswer found no difference between two organizations' lists (pgjson)")
	}
}

// serve runs serveFn on a new loopback listener and returns its base URL.
func serve(t *testing.T, serveFn func(net.Listener) error) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serveFn(ln) }()
	t.Cleanup(func() {
		_ = ln.Close()
		if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			t.Logf("server stopped: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}
