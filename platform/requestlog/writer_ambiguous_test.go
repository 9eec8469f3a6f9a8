package requestlog_test

import (
	"bytes"
	"context"
	"net"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/platform/telemetry/logtest"
)

// TestAFlushCommittedUnawaresIsNotStoredTwice: a flush whose COPY was
// committed but whose answer never came (its connection lost after the
// statement, here a proxy that swallows what PostgreSQL answers to the
// first COPY) is tried again, and the next attempt finds the batch stored
// instead of copying it a second time. Copied again, every record of such
// a batch would be stored, and listed, twice.
func TestAFlushCommittedUnawaresIsNotStoredTwice(t *testing.T) {
	ctx := context.Background()
	raw := pgtest.NewDatabase(t)
	direct := openDBAt(t, raw)
	if _, err := requestlog.Maintain(ctx, direct, requestlog.MaintainOptions{}); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = swallowingProxy(t, u.Host)
	out := &logtest.Buffer{}
	w := requestlog.NewWriter(requestlog.WriterConfig{DB: openDBAt(t, u.String()), Interval: time.Hour, WriteTimeout: time.Second,
		RetryBackoff: 100 * time.Millisecond, Log: telemetry.NewLogger(out, "info")})
	defer w.Close(ctx)
	org := uuid.New()
	const n = 25
	addPosts(w, org, n)
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var stored, distinct int
	if err := direct.NewRaw(`SELECT count(*), count(DISTINCT id) FROM request_log_segments s, unnest(s.ids) AS id
		WHERE organization_id = ?`, org).Scan(ctx, &stored, &distinct); err != nil {
		t.Fatal(err)
	}
	if stored != n || distinct != n || w.Written() != n || w.Dropped() != 0 {
		t.Fatalf("%d records stored (%d distinct), written %d, dropped %d; want each of %d once:\n%s",
			stored, distinct, w.Written(), w.Dropped(), n, out)
	}
}

// swallowingProxy forwards connections to target from a listener of its
// own, whose address it returns. On the first connection that ends a COPY
// (a CopyDone message), nothing PostgreSQL sends back afterwards reaches
// the client: the COPY commits, and the client never learns it.
func swallowingProxy(t *testing.T, target string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var armed atomic.Bool
	armed.Store(true)
	copyDone := []byte{'c', 0, 0, 0, 4}
	pipe := func(from, to net.Conn, inspect func([]byte) bool) {
		defer to.Close()
		buf := make([]byte, 64<<10)
		for {
			n, err := from.Read(buf)
			if n > 0 && inspect(buf[:n]) {
				if _, err := to.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				client.Close()
				continue
			}
			var swallowing atomic.Bool
			go pipe(client, server, func(b []byte) bool {
				if bytes.Contains(b, copyDone) && armed.CompareAndSwap(true, false) {
					swallowing.Store(true)
				}
				return true
			})
			go pipe(server, client, func([]byte) bool { return !swallowing.Load() })
		}
	}()
	return ln.Addr().String()
}
