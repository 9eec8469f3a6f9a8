package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// retryMsg is the warning logged for each failed attempt to reach the
// database at start.
const retryMsg = "eventapi-operator starting: the database is unreachable; retrying"

// startBound bounds how long a test waits for an event of the start (a
// bound on a hung test, not a performance threshold).
const startBound = 30 * time.Second

// TestRunWaitsForTheDatabase: started while nothing listens at the
// database's address, the operator keeps retrying, logging each attempt,
// and ends with the context's error when told to stop (SIGTERM), instead of
// exiting at once into the kubelet's crash-loop back-off.
func TestRunWaitsForTheDatabase(t *testing.T) {
	t.Setenv("KUBECONFIG", kubeconfig(t))
	logged, cancel, done := runWithUnreachableDatabase(t, "0")
	defer cancel()
	// Two failed attempts, the second after the first retry's wait: the
	// operator is waiting, not exiting.
	for _, wait := range []string{"1s", "2s"} {
		select {
		case line := <-logged.lines:
			if line.Msg != retryMsg || line.Level != "WARN" || line.RetryIn != wait || !strings.Contains(line.Error, "connect") {
				t.Fatalf("logged %+v, want %q with retry_in %s", line, retryMsg, wait)
			}
		case err := <-done:
			t.Fatalf("run ended while the database was unreachable: %v", err)
		case <-time.After(startBound):
			t.Fatal("no attempt logged")
		}
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "stopped while waiting for the database") {
			t.Fatalf("run after cancel: %v, want the context's error", err)
		}
	case <-time.After(startBound):
		t.Fatal("run did not end after cancel")
	}
}

// TestRunAnswersProbesWhileWaiting: while the operator waits for its
// database its probe port says alive, not ready, so a startup probe passes
// however long PostgreSQL is down (docs/helm.md, "Rolling updates and
// draining").
func TestRunAnswersProbesWhileWaiting(t *testing.T) {
	t.Setenv("KUBECONFIG", kubeconfig(t))
	probes := closedAddr(t)
	logged, cancel, done := runWithUnreachableDatabase(t, probes)
	defer func() {
		cancel()
		<-done
	}()
	select {
	case <-logged.lines: // the first attempt failed: it waits
	case err := <-done:
		t.Fatalf("run ended while the database was unreachable: %v", err)
	case <-time.After(startBound):
		t.Fatal("no attempt logged")
	}
	client := &http.Client{Timeout: 10 * time.Second}
	for path, want := range map[string]int{"/healthz": http.StatusOK, "/readyz": http.StatusServiceUnavailable} {
		res, err := client.Get("http://" + probes + path)
		if err != nil {
			t.Fatalf("GET %s while waiting: %v", path, err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Fatalf("GET %s while waiting: %d, want %d", path, res.StatusCode, want)
		}
	}
}

// TestRunReadsTheKubeconfigFirst: with no Kubernetes configuration the
// operator ends at once, naming it, even while the database is
// unreachable; waiting for the database first, logging only that, would
// show a pod missing both only the first mistake.
func TestRunReadsTheKubeconfigFirst(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "missing"))
	t.Setenv("KUBERNETES_SERVICE_HOST", "") // not the pod's own configuration either
	logged, cancel, done := runWithUnreachableDatabase(t, "0")
	defer cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "kubernetes client configuration") {
			t.Fatalf("run: %v, want the kubernetes client configuration's error", err)
		}
	case line := <-logged.lines:
		t.Fatalf("logged %+v: waited for the database before reading the Kubernetes configuration", line)
	case <-time.After(startBound):
		t.Fatal("run did not end")
	}
}

// runWithUnreachableDatabase starts run with a database URL nothing listens
// at, and its probes on probes ("0": none), and returns what it logs, the
// cancel that stops it and where its error arrives.
func runWithUnreachableDatabase(t *testing.T, probes string) (*logLines, context.CancelFunc, chan error) {
	t.Helper()
	dbURL := "postgres://postgres@" + closedAddr(t) + "/eventapi?sslmode=disable"
	logged := newLogLines()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--metrics-bind-address=0", "--health-probe-bind-address=" + probes}, logged,
			func(k string) string {
				if k == "EVENTAPI_DATABASE_URL" {
					return dbURL
				}
				return ""
			})
	}()
	return logged, cancel, done
}

// kubeconfig writes a Kubernetes client configuration naming a server
// nobody needs to reach (run reads it before it waits for the database)
// and returns its path.
func kubeconfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	const cfg = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOpenDatabaseWhenReachable: the database the operator waits for is
// opened as soon as it answers, on the next attempt.
func TestOpenDatabaseWhenReachable(t *testing.T) {
	target, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	server := target.Host
	addr := closedAddr(t)
	target.Host = addr
	logged := newLogLines()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type opened struct {
		close func() error
		err   error
	}
	done := make(chan opened, 1)
	go func() {
		db, err := openDatabase(ctx, telemetry.NewLogger(logged, "info"), target.String(),
			database.Options{MaxOpenConns: 1, Pooler: pgtest.Pooler()})
		if err != nil {
			done <- opened{err: err}
			return
		}
		if err = db.PingContext(ctx); err != nil {
			db.Close()
			done <- opened{err: err}
			return
		}
		done <- opened{close: db.Close}
	}()
	select {
	case line := <-logged.lines:
		if line.Msg != retryMsg {
			t.Fatalf("logged %+v, want %q", line, retryMsg)
		}
	case o := <-done:
		t.Fatalf("openDatabase ended while the database was unreachable: %v", o.err)
	case <-time.After(startBound):
		t.Fatal("no attempt logged")
	}
	// PostgreSQL now answers at the address.
	proxy(t, addr, server)
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatalf("openDatabase: %v", o.err)
		}
		o.close()
	case <-time.After(startBound):
		t.Fatal("openDatabase did not return once the database answered")
	}
}

// closedAddr is a loopback address where nothing listens.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// proxy forwards the connections made to addr to server until the test
// ends.
func proxy(t *testing.T, addr, server string) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", server)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, s)
			mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); _, _ = io.Copy(s, c); s.Close() }()
			go func() { defer wg.Done(); _, _ = io.Copy(c, s); c.Close() }()
		}
	}()
}

// logLine is one JSON line of the operator's log.
type logLine struct {
	Level, Msg, Error string
	RetryIn           string `json:"retry_in"`
}

// logLines is an io.Writer for the operator's log that hands each line
// that reports a failed attempt to reach the database to lines.
type logLines struct {
	mu    sync.Mutex
	buf   []byte
	lines chan logLine
}

func newLogLines() *logLines { return &logLines{lines: make(chan logLine, 100)} }

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		var line logLine
		if json.Unmarshal(l.buf[:i], &line) == nil && strings.Contains(line.Msg, "the database is unreachable") {
			select {
			case l.lines <- line:
			default: // more attempts than a test reads
			}
		}
		l.buf = l.buf[i+1:]
	}
}

// TestRunRefusesADatabaseURLItCannotUse: a URL whose sslrootcert file is
// not there (a CA Secret not mounted in the operator's pod) ends the start
// at once, naming the file, as the API's start does: waiting cannot mend
// it, and the driver's error for it otherwise reads as an outage. So do a
// keyword/value string, which the API refuses too (config.CheckDatabaseURL
// is the one rule), and an unknown pooler mode.
func TestRunRefusesADatabaseURLItCannotUse(t *testing.T) {
	target, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	q := target.Query()
	q.Set("sslmode", "verify-full")
	q.Set("sslrootcert", filepath.Join(t.TempDir(), "not-mounted.crt"))
	target.RawQuery = q.Encode()
	for _, tc := range []struct {
		name, url, pooler, want string
	}{
		{"CA file not mounted", target.String(), "", "not-mounted.crt"},
		{"keyword/value string", "host=127.0.0.1 dbname=eventapi", "", "must be a postgres:// or postgresql:// URL"},
		{"unknown pooler", pgtest.NewDatabase(t), "session", `EVENTAPI_DATABASE_POOLER "session" must be none or transaction`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"EVENTAPI_DATABASE_URL": tc.url, "EVENTAPI_DATABASE_POOLER": tc.pooler,
				"KUBECONFIG": filepath.Join(t.TempDir(), "missing")}
			logged := newLogLines()
			ctx, cancel := context.WithTimeout(context.Background(), startBound)
			defer cancel()
			err := run(ctx, nil, logged, func(k string) string { return env[k] })
			if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("run: %v (context %v); want it to end at once saying %q", err, ctx.Err(), tc.want)
			}
			select {
			case line := <-logged.lines:
				t.Fatalf("logged %+v: a URL that cannot be used was retried", line)
			default:
			}
		})
	}
}
