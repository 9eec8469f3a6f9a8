package server_test

import (
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
)

// databaseUp is the eventapi_database_up samples of a scrape.
func databaseUp(fams map[string]*dto.MetricFamily) []*dto.Metric {
	return fams["eventapi_database_up"].GetMetric()
}

// TestDatabaseUpIsMetered: a pod that reaches PostgreSQL exports
// eventapi_database_up 1; once its path to PostgreSQL is cut (every
// connection through a TCP relay closed and new ones refused), 0, with no
// request meanwhile: such a pod is not ready and gets no client requests,
// so only the gauge can show an outage of every pod
// (docs/observability.md, EventapiDatabaseUnavailable). Restored, 1 again.
// The series carries no organization; a closed service exports none.
func TestDatabaseUpIsMetered(t *testing.T) {
	u := metricsEndpoint(t)
	relay := newRelay(t)
	env := apitest.New(t, func(c *config.Config, o *server.Options) {
		o.Metrics = true
		c.DatabaseURL = relay.in(t, c.DatabaseURL)
	})
	org := env.NewOrg("Pinged")
	if res := org.Get("/api/v2/clients"); res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	gauge := func() float64 { return upGauge(t, u, "eventapi_database_up", org) }
	waitFor(t, "the first check", func() bool { return len(databaseUp(scrape(t, u))) == 1 })
	if got := gauge(); got != 1 {
		t.Fatalf("with PostgreSQL reachable: eventapi_database_up = %v, want 1", got)
	}
	relay.cut()
	waitFor(t, "eventapi_database_up 0 with the path cut", func() bool { return gauge() == 0 })
	relay.restore()
	waitFor(t, "eventapi_database_up 1 with the path restored", func() bool { return gauge() == 1 })
	if err := env.Svc.App.Shutdown(); err != nil {
		t.Fatal(err)
	}
	if err := env.Svc.Close(); err != nil {
		t.Fatal(err)
	}
	if ms := databaseUp(scrape(t, u)); len(ms) != 0 {
		t.Errorf("a closed service still exports eventapi_database_up: %v", ms)
	}
}

// relay is a TCP relay in front of PostgreSQL that the test can cut: every
// connection through it is closed and new ones are closed on arrival, as a
// PostgreSQL or PgBouncer that went away looks to its clients.
type relay struct {
	ln       net.Listener
	upstream string
	mu       sync.Mutex
	down     bool
	conns    map[net.Conn]struct{}
}

func newRelay(t *testing.T) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{ln: ln, conns: map[net.Conn]struct{}{}}
	t.Cleanup(func() { _ = ln.Close(); r.cut() })
	go r.serve()
	return r
}

// in returns dbURL with its host and port replaced by the relay's, and
// makes the relay forward to the host and port dbURL named.
func (r *relay) in(t *testing.T, dbURL string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.upstream = u.Host
	r.mu.Unlock()
	u.Host = r.ln.Addr().String()
	return u.String()
}

func (r *relay) serve() {
	for {
		c, err := r.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue
		}
		r.mu.Lock()
		down, upstream := r.down, r.upstream
		if !down {
			r.conns[c] = struct{}{}
		}
		r.mu.Unlock()
		if down {
			_ = c.Close()
			continue
		}
		go r.pipe(c, upstream)
	}
}

func (r *relay) pipe(c net.Conn, upstream string) {
	defer r.forget(c)
	up, err := net.Dial("tcp", upstream)
	if err != nil {
		return
	}
	r.mu.Lock()
	if r.down {
		r.mu.Unlock()
		_ = up.Close()
		return
	}
	r.conns[up] = struct{}{}
	r.mu.Unlock()
	defer r.forget(up)
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
}

func (r *relay) forget(c net.Conn) {
	_ = c.Close()
	r.mu.Lock()
	delete(r.conns, c)
	r.mu.Unlock()
}

// cut closes every connection through the relay and refuses new ones until
// restore.
func (r *relay) cut() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.down = true
	for c := range r.conns {
		_ = c.Close()
	}
}

func (r *relay) restore() {
	r.mu.Lock()
	r.down = false
	r.mu.Unlock()
}
