package database_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// readSizes wraps a connection and keeps the largest read it was asked for
// and how many reads it served.
type readSizes struct {
	net.Conn
	largest, reads *atomic.Int64
}

func (c readSizes) Read(p []byte) (int, error) {
	c.reads.Add(1)
	for {
		if old := c.largest.Load(); int64(len(p)) <= old || c.largest.CompareAndSwap(old, int64(len(p))) {
			break
		}
	}
	return c.Conn.Read(p)
}

// TestRepliesAreReadInLargerChunks: the service's connections offer the
// socket database.ReadBuffer bytes per read, where pgx's own frontend offers 8 KiB
// at most, and a result of about 2 MB (many reads' worth) arrives intact.
// pgx's default is the negative control: it shows what the measure sees
// without the buffer.
func TestRepliesAreReadInLargerChunks(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		service bool
		least   int64 // the largest read must be at least this
		most    int64 // and at most this
	}{
		{name: "service", service: true, least: database.ReadBuffer, most: database.ReadBuffer},
		{name: "pgx's default", least: 1, most: 8 << 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := database.PgxConfig(pgtest.AdminURL(), database.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !c.service {
				def, err := pgx.ParseConfig(pgtest.AdminURL())
				if err != nil {
					t.Fatal(err)
				}
				cfg.BuildFrontend = def.BuildFrontend
			}
			var largest, reads atomic.Int64
			dial := cfg.DialFunc
			cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
				conn, err := dial(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return readSizes{Conn: conn, largest: &largest, reads: &reads}, nil
			}
			conn, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			// About 2 MB of rows, each checked against what Go computes, so
			// a byte lost or repeated between reads shows.
			const rows = 20_000
			results, err := conn.Query(ctx, `SELECT i, repeat(md5(i::text), 3) FROM generate_series(1, $1) AS i`, rows)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for results.Next() {
				var i int
				var s string
				if err := results.Scan(&i, &s); err != nil {
					t.Fatal(err)
				}
				sum := md5.Sum([]byte(strconv.Itoa(i)))
				if n++; i != n || s != strings.Repeat(hex.EncodeToString(sum[:]), 3) {
					t.Fatalf("row %d: %d %q", n, i, s)
				}
			}
			if err := results.Err(); err != nil || n != rows {
				t.Fatalf("%d rows of %d: %v", n, rows, err)
			}
			if l := largest.Load(); l < c.least || l > c.most {
				t.Errorf("the largest read offered %d bytes, want %d..%d (%d reads)", l, c.least, c.most, reads.Load())
			}
			t.Logf("%d reads, the largest offering %d bytes", reads.Load(), largest.Load())
		})
	}
}
