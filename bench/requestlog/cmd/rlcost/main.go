// Command rlcost measures what storing the request log costs PostgreSQL per
// record (issue 12, docs/observability.md "Storage"): the same generated
// records, spread over many organizations as the catalogue benchmark's
// traffic is, are written in flushes of the writer's size, alternately
//
//   - as segments, through requestlog.Copy (the writer's path), and
//   - as one row per record into a scratch table shaped like the former
//     request_logs (migrations 20261123008100 to 20261125010000: partitioned
//     by day, the organization-time, organization-key and partial error
//     indexes), through pgx's CopyFrom,
//
// and the CPU time of the one backend that did the work is read from
// /proc/<pid>/stat. With -load, that many connections run a small query in
// a closed loop meanwhile, so the copies meet the cold caches of a busy
// server, where the per-record cost is several times an idle server's.
// PostgreSQL must run on this machine.
//
//	go run ./bench/requestlog/cmd/rlcost [-flushes 8] [-flush 8000] [-orgs 600] [-every 1s] [-rounds 3] [-load 8] [-ddl SQL]
//
// It creates a fresh database (dropped at the end) on the PostgreSQL of
// EVENTAPI_TEST_DATABASE_URL or the local one.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/bench/catalogue"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/requestlog"
)

func main() {
	flushes := flag.Int("flushes", 8, "flushes per round and layout")
	flush := flag.Int("flush", requestlog.DefaultBatch, "records per flush")
	orgs := flag.Int("orgs", 600, "organizations (one key each) the records are spread over")
	every := flag.Duration("every", time.Second, "pause between flushes (shorter than the writer's 4 s interval, to keep a run short; the CPU per record does not depend on it)")
	rounds := flag.Int("rounds", 3, "rounds; each writes with both layouts, in alternating order")
	load := flag.Int("load", 8, "connections running a small query in a closed loop meanwhile")
	ddl := flag.String("ddl", "", "SQL run once the partitions exist, to try a variant of the segments' storage without a migration")
	flag.Parse()
	ctx := context.Background()

	url, drop, err := catalogue.CreateDatabase(ctx, pgtest.AdminURL())
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = drop() }()
	db, err := database.Open(ctx, url, database.Options{MaxOpenConns: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := requestlog.Maintain(ctx, db, requestlog.MaintainOptions{Retention: 72 * time.Hour, Ahead: 1}); err != nil {
		log.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, rowsTable); err != nil {
		log.Fatal(err)
	}
	if *ddl != "" {
		if _, err := db.ExecContext(ctx, *ddl); err != nil {
			log.Fatalf("-ddl: %v", err)
		}
	}
	stop := startLoad(ctx, url, *load)
	defer stop()

	gen := newGenerator(*orgs)
	layouts := []struct {
		name  string
		write func([]requestlog.Record) error
	}{
		{"segments (requestlog.Copy)", func(r []requestlog.Record) error { return requestlog.Copy(ctx, db, r) }},
		{"a row per record (former)", func(r []requestlog.Record) error { return copyRows(ctx, db, r) }},
	}
	perRecord := make([][]time.Duration, len(layouts))
	for round := range *rounds {
		for j := range layouts {
			i := (j + round) % len(layouts)
			perRecord[i] = append(perRecord[i], measure(ctx, db, *flushes, *flush, *every, gen, layouts[i].write))
		}
	}
	fmt.Printf("%d flushes of %d records over %d organizations every %v, %d loading connections, %d rounds\n",
		*flushes, *flush, *orgs, *every, *load, *rounds)
	var segs, rowBytes, onDisk int64
	if err := db.NewRaw(`SELECT (SELECT count(*) FROM request_log_segments),
	        (SELECT coalesce(avg(pg_column_size(s.*)), 0)::bigint FROM request_log_segments s),
	        (SELECT coalesce(sum(pg_total_relation_size(inhrelid)), 0) FROM pg_inherits
	         WHERE inhparent = 'request_log_segments'::regclass)`).Scan(ctx, &segs, &rowBytes, &onDisk); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("segments: %d rows of %d bytes on average (pg_column_size), %.1f MiB on disk with their indexes and TOAST\n",
		segs, rowBytes, float64(onDisk)/(1<<20))
	for i, l := range layouts {
		d := slices.Clone(perRecord[i])
		slices.Sort(d)
		fmt.Printf("%-28s PostgreSQL CPU per record: median %v (rounds %v)\n", l.name, d[len(d)/2], perRecord[i])
	}
}

// measure writes flushes of n records with write and returns the backend's
// CPU per record.
func measure(ctx context.Context, db *bun.DB, flushes, n int, every time.Duration, gen *generator,
	write func([]requestlog.Record) error) time.Duration {
	var pid int
	if err := db.NewRaw("SELECT pg_backend_pid()").Scan(ctx, &pid); err != nil {
		log.Fatal(err)
	}
	before, err := catalogue.ReadCPU(pid)
	if err != nil {
		log.Fatalf("backend %d: %v (PostgreSQL must run on this machine)", pid, err)
	}
	for range flushes {
		if err := write(gen.next(n)); err != nil {
			log.Fatal(err)
		}
		time.Sleep(every)
	}
	after, err := catalogue.ReadCPU(pid)
	if err != nil {
		log.Fatal(err)
	}
	return (after - before) / time.Duration(flushes*n)
}

// generator makes records as the middleware would: the request id is the
// record's UUIDv7 id, one key per organization, successful GETs, request i
// of organization i mod orgs, created now.
type generator struct {
	orgs, keys []uuid.UUID
	i          int
}

func newGenerator(orgs int) *generator {
	g := &generator{orgs: make([]uuid.UUID, orgs), keys: make([]uuid.UUID, orgs)}
	for i := range g.orgs {
		g.orgs[i], g.keys[i] = uuid.New(), uuid.New()
	}
	return g
}

func (g *generator) next(n int) []requestlog.Record {
	route, ua, prefix, ip := "/api/v2/clients/{id}", "catbench/1", "svc_live_abcd", "127.0.0.1"
	out := make([]requestlog.Record, n)
	for i := range out {
		o := g.i % len(g.orgs)
		g.i++
		at := time.Now()
		id := requestlog.NewID(at)
		out[i] = requestlog.Record{ID: id, CreatedAt: at, RequestID: id.String(),
			Method: "GET", Path: "/api/v2/clients/" + uuid.NewString(), Route: &route, Status: 200, DurationMS: 1.5,
			OrganizationID: &g.orgs[o], KeyID: &g.keys[o], KeyPrefix: &prefix, IP: &ip, UserAgent: &ua, APIVersion: "v2"}
		out[i].Normalize()
	}
	return out
}

// rowsTable is the former one-row-per-request table, with its indexes.
const rowsTable = `CREATE TABLE rows_bench (
    id uuid NOT NULL, created_at timestamptz NOT NULL, organization_id uuid, request_id text NOT NULL,
    method text NOT NULL, path text NOT NULL, route text, status smallint NOT NULL,
    duration_ms double precision NOT NULL, error_code text, key_id uuid, key_prefix text,
    idempotency_key text, idempotent_replayed boolean NOT NULL DEFAULT false, ip text, user_agent text,
    api_version text NOT NULL
) PARTITION BY RANGE (created_at);
CREATE TABLE rows_bench_p PARTITION OF rows_bench FOR VALUES FROM ('2000-01-01') TO ('2100-01-01');
CREATE INDEX ON rows_bench (organization_id, created_at, id);
CREATE INDEX ON rows_bench (organization_id, key_id, created_at);
CREATE INDEX ON rows_bench (organization_id, status, created_at) WHERE status >= 400;`

// copyRows copies records into rows_bench, one row each.
func copyRows(ctx context.Context, db *bun.DB, records []requestlog.Record) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	cols := []string{"id", "created_at", "organization_id", "request_id", "method", "path", "route", "status",
		"duration_ms", "error_code", "key_id", "key_prefix", "idempotency_key", "idempotent_replayed", "ip",
		"user_agent", "api_version"}
	return conn.Raw(func(dc any) error {
		_, err := database.PgxConn(dc).CopyFrom(ctx, pgx.Identifier{"rows_bench"}, cols, pgx.CopyFromSlice(len(records),
			func(i int) ([]any, error) {
				r := &records[i]
				return []any{r.ID, r.CreatedAt, pgUUID(r.OrganizationID), r.RequestID, r.Method, r.Path, r.Route,
					int16(r.Status), r.DurationMS, r.ErrorCode, pgUUID(r.KeyID), r.KeyPrefix, r.IdempotencyKey,
					r.IdempotentReplayed, r.IP, r.UserAgent, r.APIVersion}, nil
			}))
		return err
	})
}

func pgUUID(id *uuid.UUID) pgtype.UUID {
	if id == nil {
		return pgtype.UUID{}
	}
	return pgtype.UUID{Bytes: *id, Valid: true}
}

// startLoad runs n connections of small queries until the returned stop is
// called.
func startLoad(ctx context.Context, url string, n int) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range n {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			log.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close(context.Background())
			var x int
			for ctx.Err() == nil {
				_ = conn.QueryRow(ctx, "SELECT count(*) FROM pg_class WHERE oid = $1", 1259).Scan(&x)
			}
		}()
	}
	return func() { cancel(); wg.Wait() }
}
