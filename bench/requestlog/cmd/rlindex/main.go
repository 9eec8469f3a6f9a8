// Command rlindex measures what the request log's indexes cost PostgreSQL
// per written record (issue 12): it copies the same generated records into
// request_logs through requestlog.Copy (the writer's path) with the indexes
// of migration 20261123008100 (four btrees), of 20261123009100 (with a hash
// index on request_id), of the current schema and of smaller sets, and
// reads the CPU time of the one backend that did the work from
// /proc/<pid>/stat, so other load on the machine does not count. PostgreSQL
// must run on this machine.
//
//	go run ./bench/requestlog/cmd/rlindex [-rows 100000] [-reps 5] [-orgs 600]
//
// It creates a fresh database (dropped at the end) on the PostgreSQL of
// EVENTAPI_TEST_DATABASE_URL (default the local one). Nothing is asserted.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/bench/catalogue"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/requestlog"
)

// variants turn the migrated schema into each measured index set.
var variants = []struct {
	name string
	ddl  []string
}{
	{"four btrees (20261123008100)", []string{
		"DROP INDEX request_logs_org_error_idx",
		"CREATE INDEX request_logs_org_request_idx ON request_logs (organization_id, request_id)",
		"CREATE INDEX request_logs_org_status_idx ON request_logs (organization_id, status, created_at)"}},
	{"with the request_id hash (20261123009100)", []string{
		"CREATE INDEX request_logs_request_idx ON request_logs USING hash (request_id)"}},
	{"current schema", nil},
	{"current without the key index", []string{"DROP INDEX request_logs_org_key_idx"}},
	{"key in the time index (INCLUDE)", []string{"DROP INDEX request_logs_org_key_idx", "DROP INDEX request_logs_org_time_idx",
		"CREATE INDEX request_logs_org_time_idx ON request_logs (organization_id, created_at, id) INCLUDE (key_id)"}},
	{"time index only", []string{"DROP INDEX request_logs_org_key_idx", "DROP INDEX request_logs_org_error_idx"}},
	{"no index (the floor)", []string{"DROP INDEX request_logs_org_key_idx", "DROP INDEX request_logs_org_error_idx", "DROP INDEX request_logs_org_time_idx"}},
}

func main() {
	rows := flag.Int("rows", 100_000, "records per copy")
	reps := flag.Int("reps", 5, "copies per variant (each variant starts from an empty table)")
	orgs := flag.Int("orgs", 600, "organizations (one key each) the records are spread over")
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
	records := generate(*rows, *orgs)
	for _, v := range variants {
		var perRow []time.Duration
		for range *reps {
			perRow = append(perRow, measure(ctx, db, v.ddl, records))
		}
		slices.Sort(perRow)
		fmt.Printf("%-30s PostgreSQL CPU per record: median %v (min %v, max %v, %d copies of %d)\n",
			v.name, perRow[len(perRow)/2], perRow[0], perRow[len(perRow)-1], *reps, *rows)
	}
}

// generate makes records as the middleware would: the request id is the
// record's UUIDv7 id, one key per organization, successful GETs, created
// over the last seconds.
func generate(n, orgs int) []requestlog.Record {
	ids, keys := make([]uuid.UUID, orgs), make([]uuid.UUID, orgs)
	for i := range ids {
		ids[i], keys[i] = uuid.New(), uuid.New()
	}
	now := time.Now().UTC()
	out := make([]requestlog.Record, n)
	route, ua, prefix, ip := "/api/v2/clients/{id}", "catbench/1", "ea_live_abcd", "127.0.0.1"
	for i := range out {
		o := i % orgs
		at := now.Add(time.Duration(i-n) * time.Microsecond)
		id := requestlog.NewID(at)
		out[i] = requestlog.Record{ID: id, CreatedAt: at, RequestID: id.String(),
			Method: "GET", Path: "/api/v2/clients/" + uuid.NewString(), Route: &route, Status: 200, DurationMS: 1.5,
			OrganizationID: &ids[o], KeyID: &keys[o], KeyPrefix: &prefix, IP: &ip, UserAgent: &ua, APIVersion: "v2"}
		out[i].Normalize()
	}
	return out
}

// measure rebuilds the indexes, empties the table and copies records in
// batches of the writer's size, returning the backend's CPU per record.
func measure(ctx context.Context, db *bun.DB, ddl []string, records []requestlog.Record) time.Duration {
	if _, err := db.ExecContext(ctx, "DROP TABLE request_logs"); err != nil {
		log.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, createTable); err != nil {
		log.Fatal(err)
	}
	if _, err := requestlog.Maintain(ctx, db, requestlog.MaintainOptions{Retention: 72 * time.Hour, Ahead: 1}); err != nil {
		log.Fatal(err)
	}
	for _, q := range ddl {
		if _, err := db.ExecContext(ctx, q); err != nil {
			log.Fatalf("%s: %v", q, err)
		}
	}
	var pid int
	if err := db.NewRaw("SELECT pg_backend_pid()").Scan(ctx, &pid); err != nil {
		log.Fatal(err)
	}
	before, err := catalogue.ReadCPU(pid)
	if err != nil {
		log.Fatalf("backend %d: %v (PostgreSQL must run on this machine)", pid, err)
	}
	for start := 0; start < len(records); start += requestlog.DefaultBatch {
		if err := requestlog.Copy(ctx, db, records[start:min(start+requestlog.DefaultBatch, len(records))]); err != nil {
			log.Fatal(err)
		}
	}
	after, err := catalogue.ReadCPU(pid)
	if err != nil {
		log.Fatal(err)
	}
	return (after - before) / time.Duration(len(records))
}

// createTable is request_logs with the indexes of the current schema
// (migrations 20261123008100, 20261123009100 and 20261125010000).
var createTable = `CREATE TABLE request_logs (
    id uuid NOT NULL, created_at timestamptz NOT NULL, organization_id uuid, request_id text NOT NULL,
    method text NOT NULL, path text NOT NULL, route text, status smallint NOT NULL,
    duration_ms double precision NOT NULL, error_code text, key_id uuid, key_prefix text,
    idempotency_key text, idempotent_replayed boolean NOT NULL DEFAULT false, ip text, user_agent text,
    api_version text NOT NULL
) PARTITION BY RANGE (created_at);
CREATE INDEX request_logs_org_time_idx ON request_logs (organization_id, created_at, id);
CREATE INDEX request_logs_org_key_idx ON request_logs (organization_id, key_id, created_at);
CREATE INDEX request_logs_org_error_idx ON request_logs (organization_id, status, created_at) WHERE status >= 400;`
