package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/url"
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
	dbURL := "postgres://postgres@" + closedAddr(t) + "/eventapi?sslmode=disable"
	logged := newLogLines()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--metrics-bind-address=0", "--health-probe-bind-address=0"}, logged,
			func(k string) string {
				if k == "EVENTAPI_DATABASE_URL" {
					return dbURL
				}
				return ""
			})
	}()
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
