package webhooks_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// eventapiBinary builds the real eventapi binary once per test binary.
func eventapiBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "webhooks-test-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "eventapi")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/eventapi/eventapi/cmd/eventapi").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build cmd/eventapi: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// server is a running `eventapi serve`.
type server struct {
	cmd  *exec.Cmd
	base string
	done chan struct{}
	mu   sync.Mutex
	logs bytes.Buffer
}

func (s *server) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.Write(b)
}

// startServer runs `eventapi serve` on a random loopback port with env.
func startServer(t *testing.T, env ...string) *server {
	t.Helper()
	s := &server{done: make(chan struct{})}
	s.cmd = exec.Command(eventapiBinary(t), "serve")
	s.cmd.Env = append(os.Environ(), append([]string{"EVENTAPI_ADDR=127.0.0.1:0", "EVENTAPI_METRICS_ADDR=127.0.0.1:0",
		"OTEL_SDK_DISABLED=true", "EVENTAPI_LOG_LEVEL=info", "EVENTAPI_DRAIN_DELAY=0s"}, env...)...)
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.cmd.Stderr = s
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var line struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "eventapi listening" {
				addr <- line.Addr
			}
			_, _ = s.Write(append(sc.Bytes(), '\n'))
		}
	}()
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		s.Kill()
		if t.Failed() {
			s.mu.Lock()
			t.Logf("server %d log:\n%s", s.cmd.Process.Pid, s.logs.String())
			s.mu.Unlock()
		}
	})
	select {
	case a := <-addr:
		s.base = "http://" + a
		return s
	case <-s.done:
		t.Fatalf("eventapi serve exited before listening:\n%s", s.logs.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("eventapi serve did not report its address")
	}
	return nil
}

// Kill sends SIGKILL and waits for the process to exit.
func (s *server) Kill() {
	select {
	case <-s.done:
	default:
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// do sends one request with key and decodes the {data} envelope.
func (s *server) do(t *testing.T, key, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var env struct {
		Data map[string]any `json:"data"`
	}
	_ = json.NewDecoder(res.Body).Decode(&env)
	return res.StatusCode, env.Data
}

// deliveryState is one delivery row as the test reads it.
type deliveryState struct {
	ChangeID string `bun:"change_id"`
	Status   string `bun:"status"`
	Attempts int    `bun:"attempt_count"`
	Recorded int    `bun:"recorded"`
}

// TestTwoProcessesShareTheQueue: two real `eventapi serve` processes
// deliver from one queue. With a healthy receiver every change arrives
// exactly once and is never in flight twice; a process killed with SIGKILL
// while its request is held at the receiver loses nothing: the lease runs
// out and the other process delivers it.
func TestTwoProcessesShareTheQueue(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	ctx := context.Background()
	db, err := database.Open(ctx, dbURL, database.Options{MaxOpenConns: 2, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	org, err := tenancy.CreateOrganization(ctx, db, "Fleet", nil)
	if err != nil {
		t.Fatal(err)
	}
	k, err := tenancy.CreateKey(ctx, db, tenancy.NewKey{OrganizationID: org.ID, Name: "k", Scopes: tenancy.AllScopes, Mode: apikey.Live})
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"EVENTAPI_DATABASE_URL=" + dbURL, "EVENTAPI_DATABASE_POOLER=" + pgtest.Pooler(), "EVENTAPI_REDIS_URL=" + pgtest.RedisURL(),
		"EVENTAPI_WEBHOOK_ALLOW_PRIVATE=true", "EVENTAPI_WEBHOOK_POLL_INTERVAL=20ms",
		"EVENTAPI_WEBHOOK_TIMEOUT=2s", "EVENTAPI_WEBHOOK_LEASE=3s",
		"EVENTAPI_WEBHOOK_BACKOFF_BASE=20ms", "EVENTAPI_WEBHOOK_BACKOFF_MAX=200ms"}
	p1, p2 := startServer(t, env...), startServer(t, env...)

	rcv := newReceiver(t)
	var inflight sync.Map // webhook-id → *int32 concurrent requests
	var overlap sync.Once
	overlapped := false
	held := make(chan *http.Request, 1)
	var holding bool
	var hmu sync.Mutex
	rcv.hold = func(r *http.Request) {
		id := r.Header.Get("webhook-id")
		v, _ := inflight.LoadOrStore(id, new(int))
		hmu.Lock()
		n := v.(*int)
		*n++
		if *n > 1 {
			overlap.Do(func() { overlapped = true })
		}
		hold := holding
		holding = false
		hmu.Unlock()
		if hold {
			held <- r
			<-r.Context().Done() // until the sending process dies
		}
		hmu.Lock()
		*n--
		hmu.Unlock()
	}
	code, ep := p1.do(t, k.Secret, "POST", endpoints, map[string]any{"url": rcv.URL(), "enabled_events": []string{"client.created"}})
	if code != 201 {
		t.Fatalf("register: %d %v", code, ep)
	}
	rcv.SetSecret(ep["secret"].(string))

	// Healthy receiver: exactly once each.
	const n = 40
	want := map[string]bool{}
	for i := 0; i < n; i++ {
		p := []*server{p1, p2}[i%2]
		code, c := p.do(t, k.Secret, "POST", "/api/v2/clients", map[string]any{"name": fmt.Sprintf("client %d", i)})
		if code != 201 {
			t.Fatalf("create client: %d", code)
		}
		want[c["id"].(string)] = true
	}
	waitFor(t, "every change delivered", func() bool { return len(created(rcv)) == n })
	var states []deliveryState
	waitFor(t, "every delivery recorded", func() bool {
		states = nil
		if err := db.NewRaw(`SELECT d.change_id, d.status, d.attempt_count,
				(SELECT count(*) FROM webhook_delivery_attempts a WHERE a.organization_id = d.organization_id AND a.delivery_id = d.id) AS recorded
			FROM webhook_deliveries d WHERE d.organization_id = ?`, org.ID).Scan(ctx, &states); err != nil {
			t.Fatal(err)
		}
		for _, s := range states {
			if s.Status != "succeeded" {
				return false
			}
		}
		return len(states) == n
	})
	for id, times := range created(rcv) {
		if !want[id] || times != 1 {
			t.Errorf("client %s delivered %d times (known %v), want exactly once", id, times, want[id])
		}
	}
	for _, s := range states {
		if s.Attempts != 1 || s.Recorded != 1 {
			t.Errorf("delivery of %s: %d attempts (%d recorded), want 1", s.ChangeID, s.Attempts, s.Recorded)
		}
	}

	// SIGKILL mid-delivery: the receiver holds the next request until the
	// process that sent it is killed.
	hmu.Lock()
	holding = true
	hmu.Unlock()
	_, c := p2.do(t, k.Secret, "POST", "/api/v2/clients", map[string]any{"name": "killed in flight"})
	victim := c["id"].(string)
	var r *http.Request
	select {
	case r = <-held:
	case <-time.After(60 * time.Second):
		t.Fatal("no delivery reached the receiver")
	}
	sender, survivor := p1, p2
	if ownsConnection(t, p2.cmd.Process.Pid, r.RemoteAddr) {
		sender, survivor = p2, p1
	} else if !ownsConnection(t, p1.cmd.Process.Pid, r.RemoteAddr) {
		t.Fatalf("neither process owns the connection from %s", r.RemoteAddr)
	}
	sender.Kill()
	waitFor(t, "the killed process's change delivered by the other", func() bool { return created(rcv)[victim] == 1 })
	var s deliveryState
	waitFor(t, "the delivery recorded as succeeded", func() bool {
		err := db.NewRaw(`SELECT d.change_id, d.status, d.attempt_count,
				(SELECT count(*) FROM webhook_delivery_attempts a WHERE a.organization_id = d.organization_id AND a.delivery_id = d.id) AS recorded
			FROM webhook_deliveries d JOIN changes ch ON ch.organization_id = d.organization_id AND ch.id = d.change_id
			WHERE d.organization_id = ? AND ch.object_id = ?`, org.ID, victim).Scan(ctx, &s)
		return err == nil && s.Status == "succeeded"
	})
	// The killed attempt left no record; the survivor's did.
	if s.Attempts != 1 || s.Recorded != 1 {
		t.Errorf("killed-in-flight delivery: %d attempts, %d recorded; want 1 (the survivor's)", s.Attempts, s.Recorded)
	}
	// The survivor still delivers new changes.
	_, c = survivor.do(t, k.Secret, "POST", "/api/v2/clients", map[string]any{"name": "after the kill"})
	after := c["id"].(string)
	waitFor(t, "a change after the kill", func() bool { return created(rcv)[after] == 1 })
	hmu.Lock()
	twice := overlapped
	hmu.Unlock()
	if twice {
		t.Error("one delivery was in flight twice at once")
	}
	if bad := rcv.Bad(); len(bad) > 0 {
		t.Errorf("requests that failed verification: %v", bad)
	}
}
