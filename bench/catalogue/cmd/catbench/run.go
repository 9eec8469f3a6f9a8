package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/bench/catalogue"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// raisedLimit is the v2 limit per window of the two search-scaling
// organizations (1k and 100k clients), which the search and deep-cursor
// phases load alone: those phases measure the database, not the limiter.
// Every other organization (the tenants of the detail, list and manifest
// endpoints) keeps the real default, EVENTAPI_V2_RATE_LIMIT's 1000 per 60 s.
const raisedLimit = 1_000_000_000

// realLimit and realWindow are the app's defaults (platform/config), which
// the chain runs with.
const (
	realLimit  = 1000
	realWindow = time.Minute
)

// bench is one run: the servers, the seeded organizations and the shared
// HTTP client.
type bench struct {
	o      options
	client *http.Client
	// procs are the servers: the chain first, then the chain with
	// -chain-db-params and the chain without the request log
	// (-request-log-off) when asked for, the baseline last.
	procs []*child
	// monitor is a one-connection pool the parent uses to list the
	// database's backends.
	monitor *pgxpool.Pool
	// redisPID is the process listening at the Redis address, postmasterPID
	// the one at PostgreSQL's (0: not local), found by socket, not by name.
	redisPID, postmasterPID int
	small                   catalogue.Org
	big                     catalogue.Org
	// tenants carry the detail and list load, manifests (the first
	// o.manifestOrgs tenants) the manifest's, each at its real limit.
	tenants   []catalogue.Org
	manifests []uuid.UUID // pick list id of tenants[i]
	// deepCursor is a cursor 90% of the way into the big organization's list.
	deepCursor string
}

// baseline and pgjson are the bare and the PostgreSQL-JSON servers.
func (b *bench) baseline() *child { return b.procs[len(b.procs)-2] }
func (b *bench) pgjson() *child   { return b.procs[len(b.procs)-1] }

// header is how proc learns which organization a request is for: a chain
// by the org's key, the baselines by a header naming it.
func header(proc *child, org catalogue.Org) http.Header {
	if proc.role == "chain" {
		return http.Header{"Authorization": {"Bearer " + org.Key}}
	}
	return http.Header{catalogue.HeaderOrg: {org.ID.String()}}
}

// server returns how to reach proc as org.
func (b *bench) server(proc *child, org catalogue.Org) catalogue.Server {
	return catalogue.Server{Name: proc.name, Base: "http://" + proc.addr, Header: header(proc, org)}
}

func run(ctx context.Context, o options) (err error) {
	if o.adminURL == "" {
		o.adminURL = pgtest.AdminURL()
	}
	if o.redisURL == "" {
		o.redisURL = pgtest.RedisURL()
	}
	fmt.Printf("catbench %s  GOMAXPROCS=%d NumCPU=%d %s\n", time.Now().UTC().Format(time.RFC3339),
		runtime.GOMAXPROCS(0), runtime.NumCPU(), runtime.Version())

	t0 := time.Now()
	dbURL, drop, err := catalogue.CreateDatabase(ctx, o.adminURL)
	if drop != nil {
		defer func() { err = errors.Join(err, drop()) }()
	}
	if err != nil {
		return err
	}
	b := &bench{o: o, client: catalogue.NewClient(max(o.concurrency, o.openWorkers))}
	if b.redisPID, err = catalogue.URLListenerPID(o.redisURL); err != nil {
		fmt.Printf("Redis CPU not measured: %v\n", err)
	}
	if b.postmasterPID, err = catalogue.URLListenerPID(o.adminURL); err != nil {
		fmt.Printf("PostgreSQL CPU not measured: %v\n", err)
	}
	fmt.Printf("Redis at %s: pid %d; PostgreSQL at %s: postmaster pid %d (found by listening socket)\n",
		catalogue.HostPort(o.redisURL), b.redisPID, catalogue.HostPort(o.adminURL), b.postmasterPID)
	if err := b.seed(ctx, dbURL); err != nil {
		return err
	}
	if b.monitor, err = catalogue.OpenPool(ctx, dbURL, 1); err != nil {
		return err
	}
	defer b.monitor.Close()
	fmt.Printf("seeded %d + %d clients, %d tenants x %d clients (limit %d per %v each), %d manifests of %d items in %v\n",
		b.small.Clients, b.big.Clients, len(b.tenants), o.tenantClients, realLimit, realWindow, len(b.manifests),
		o.manifestItems, time.Since(t0).Round(time.Millisecond))

	conns := strconv.Itoa(o.dbConns)
	chainEnv := func(dbURL, profile string) []string {
		return []string{"EVENTAPI_DATABASE_URL=" + dbURL, "EVENTAPI_REDIS_URL=" + o.redisURL,
			"EVENTAPI_ADDR=127.0.0.1:0", "EVENTAPI_V2_RATE_LIMIT=" + strconv.Itoa(realLimit),
			"EVENTAPI_RATE_WINDOW=" + realWindow.String(), "EVENTAPI_DB_MAX_CONNS=" + conns, cpuProfileEnv + "=" + absOrEmpty(profile)}
	}
	type spec struct {
		name, role string
		env        []string
	}
	starts := []spec{{"chain", "chain", append(chainEnv(dbURL, o.cpuProfileChain), memProfileEnv+"="+absOrEmpty(o.memProfileChain))}}
	if o.chainDBParams != "" {
		starts = append(starts, spec{"chain+" + o.chainDBParams, "chain", chainEnv(withParams(dbURL, o.chainDBParams), "")})
	}
	if o.chainEnv != "" {
		starts = append(starts, spec{"chain+" + o.chainEnv, "chain", append(chainEnv(dbURL, ""), o.chainEnv)})
	}
	if o.requestLogOff {
		starts = append(starts, spec{"chain-no-request-log", "chain", append(chainEnv(dbURL, o.cpuProfileNoLog), requestLogEnv+"=off")})
	}
	starts = append(starts, spec{"baseline", "baseline", []string{baseDBEnv + "=" + dbURL, baseConnsEnv + "=" + conns,
		cpuProfileEnv + "=" + absOrEmpty(o.cpuProfileBase)}})
	starts = append(starts, spec{"pgjson", "pgjson", []string{baseDBEnv + "=" + dbURL, baseConnsEnv + "=" + conns,
		cpuProfileEnv + "=" + absOrEmpty(o.cpuProfilePGJSON)}})
	for _, st := range starts {
		proc, startErr := startChild(ctx, st.name, st.role, st.env)
		if startErr != nil {
			return startErr
		}
		defer func() { err = errors.Join(err, proc.stop()) }() // err: run's result
		b.procs = append(b.procs, proc)
	}
	// Idle keep-alive connections would hold up the servers' graceful drain.
	defer b.client.CloseIdleConnections()

	if err := b.checkSameAnswers(ctx); err != nil {
		return err
	}
	fmt.Println("chain, baseline and pgjson answer every benchmarked request with the same JSON values")

	if o.has("max") {
		if err := b.maxPhase(ctx); err != nil {
			return err
		}
	}
	if o.has("half") {
		if err := b.halfPhase(ctx); err != nil {
			return err
		}
	}
	if o.has("search") {
		if err := b.searchPhase(ctx); err != nil {
			return err
		}
	}
	if o.has("pairs") {
		if err := b.pairsPhase(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) seed(ctx context.Context, dbURL string) error {
	db, err := database.Open(ctx, dbURL, database.Options{MaxOpenConns: 2})
	if err != nil {
		return err
	}
	defer db.Close()
	if b.small, err = catalogue.SeedOrg(ctx, db, "bench 1k", b.o.small, raisedLimit); err != nil {
		return err
	}
	if b.big, err = catalogue.SeedOrg(ctx, db, "bench 100k", b.o.big, raisedLimit); err != nil {
		return err
	}
	if b.tenants, err = catalogue.SeedTenants(ctx, db, b.o.tenants, b.o.tenantClients); err != nil {
		return err
	}
	for i := range min(b.o.manifestOrgs, len(b.tenants)) {
		pl, err := catalogue.SeedManifest(ctx, db, b.tenants[i].ID, b.o.manifestItems)
		if err != nil {
			return err
		}
		b.manifests = append(b.manifests, pl)
	}
	if err := catalogue.Prepare(ctx, db); err != nil {
		return err
	}
	// The deep cursor: what the app hands out after the row 90% of the way
	// into the big organization's list.
	deep := b.big.ClientIDs[len(b.big.ClientIDs)*9/10]
	var at time.Time
	if err := db.NewRaw("SELECT created_at FROM clients WHERE id = ?", deep).Scan(ctx, &at); err != nil {
		return err
	}
	var key []byte
	if err := db.NewRaw("SELECT value FROM service_secrets WHERE name = 'cursor_hmac'").Scan(ctx, &key); err != nil {
		return err
	}
	b.deepCursor = storage.NewCursors(key).Encode("clients:"+b.big.ID.String()+":", storage.Cursor{CreatedAt: at.UTC(), ID: deep})
	b.big.ClientIDs = nil
	return nil
}

// checkSameAnswers makes sure both servers do the same work for every path
// the run sends.
func (b *bench) checkSameAnswers(ctx context.Context) error {
	last := b.tenants[len(b.tenants)-1]
	for _, org := range []catalogue.Org{b.small, b.big, b.tenants[0], last} {
		paths := []string{listPath, searchPath(catalogue.SearchCommon), searchPath(catalogue.SearchRare)}
		if org.ClientIDs != nil {
			paths = append(paths, detailPath(org.ClientIDs[0]), detailPath(org.ClientIDs[len(org.ClientIDs)-1]))
		}
		for _, p := range paths {
			for _, proc := range b.procs[:len(b.procs)-2] {
				for _, ref := range []*child{b.baseline(), b.pgjson()} {
					if err := catalogue.SameAnswer(ctx, b.client, b.server(proc, org), b.server(ref, org), p); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

const listPath = "/api/v2/clients?limit=25"

func searchPath(term string) string { return listPath + "&search=" + url.QueryEscape(term) }

func detailPath(id uuid.UUID) string { return "/api/v2/clients/" + id.String() }

// withParams appends extra query parameters (pgx connection settings such
// as default_query_exec_mode=exec) to a database URL.
func withParams(dbURL, params string) string {
	if params == "" {
		return dbURL
	}
	sep := "?"
	if strings.Contains(dbURL, "?") {
		sep = "&"
	}
	return dbURL + sep + params
}

func absOrEmpty(path string) string {
	if path == "" {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	return abs
}
