package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eventapi/eventapi/bench/catalogue"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// rateLimit is the v2 limit per window given to the benchmark's
// organizations (and as the default), far above anything the run reaches.
const rateLimit = 1_000_000_000

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
	// redisPID is the local redis-server, for its CPU time (0: none found).
	redisPID  int
	small     catalogue.Org
	big       catalogue.Org
	detailIDs []uuid.UUID
}

func (b *bench) chain() *child    { return b.procs[0] }
func (b *bench) baseline() *child { return b.procs[len(b.procs)-1] }

// server returns how to reach proc as org: a chain by the org's key, the
// baseline by naming the org in a header.
func (b *bench) server(proc *child, org catalogue.Org) catalogue.Server {
	s := catalogue.Server{Name: proc.name, Base: "http://" + proc.addr}
	if proc.role == "chain" {
		s.Header = http.Header{"Authorization": {"Bearer " + org.Key}}
	} else {
		s.Header = http.Header{catalogue.HeaderOrg: {org.ID.String()}}
	}
	return s
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
	b := &bench{o: o, client: catalogue.NewClient(max(o.concurrency, o.openWorkers)),
		redisPID: catalogue.FindProcess("redis-server")}
	if err := b.seed(ctx, dbURL); err != nil {
		return err
	}
	if b.monitor, err = catalogue.OpenPool(ctx, dbURL, 1); err != nil {
		return err
	}
	defer b.monitor.Close()
	fmt.Printf("seeded %d + %d clients in %v\n", b.small.Clients, b.big.Clients, time.Since(t0).Round(time.Millisecond))

	conns := strconv.Itoa(o.dbConns)
	chainEnv := func(dbURL, profile string) []string {
		return []string{"EVENTAPI_DATABASE_URL=" + dbURL, "EVENTAPI_REDIS_URL=" + o.redisURL,
			"EVENTAPI_ADDR=127.0.0.1:0", "EVENTAPI_V2_RATE_LIMIT=" + strconv.Itoa(rateLimit),
			"EVENTAPI_DB_MAX_CONNS=" + conns, cpuProfileEnv + "=" + absOrEmpty(profile)}
	}
	type spec struct {
		name, role string
		env        []string
	}
	starts := []spec{{"chain", "chain", chainEnv(dbURL, o.cpuProfileChain)}}
	if o.chainDBParams != "" {
		starts = append(starts, spec{"chain+" + o.chainDBParams, "chain", chainEnv(withParams(dbURL, o.chainDBParams), "")})
	}
	if o.requestLogOff {
		starts = append(starts, spec{"chain-no-request-log", "chain", append(chainEnv(dbURL, ""), requestLogEnv+"=off")})
	}
	starts = append(starts, spec{"baseline", "baseline", []string{baseDBEnv + "=" + dbURL, baseConnsEnv + "=" + conns,
		cpuProfileEnv + "=" + absOrEmpty(o.cpuProfileBase)}})
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
	fmt.Println("chain and baseline answer every benchmarked request identically")

	var chainMax map[string]float64
	if o.has("max") {
		if chainMax, err = b.maxPhase(ctx); err != nil {
			return err
		}
	}
	if o.has("half") {
		if chainMax == nil {
			return errors.New("phase half needs phase max (it runs at half the measured maximum)")
		}
		if err := b.halfPhase(ctx, chainMax); err != nil {
			return err
		}
	}
	if o.has("search") {
		if err := b.searchPhase(ctx); err != nil {
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
	if b.small, err = catalogue.SeedOrg(ctx, db, "bench 1k", b.o.small, rateLimit); err != nil {
		return err
	}
	if b.big, err = catalogue.SeedOrg(ctx, db, "bench 100k", b.o.big, rateLimit); err != nil {
		return err
	}
	b.big.ClientIDs = nil // only the small organization's ids are requested
	b.detailIDs = append([]uuid.UUID(nil), b.small.ClientIDs...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(b.detailIDs), func(i, j int) {
		b.detailIDs[i], b.detailIDs[j] = b.detailIDs[j], b.detailIDs[i]
	})
	return catalogue.Prepare(ctx, db)
}

// checkSameAnswers makes sure both servers do the same work for every path
// the run sends.
func (b *bench) checkSameAnswers(ctx context.Context) error {
	for _, org := range []catalogue.Org{b.small, b.big} {
		paths := []string{listPath, searchPath(catalogue.SearchCommon), searchPath(catalogue.SearchRare)}
		if org.ID == b.small.ID {
			paths = append(paths, detailPath(b.detailIDs[0]), detailPath(b.detailIDs[len(b.detailIDs)-1]))
		}
		for _, p := range paths {
			for _, proc := range b.procs[:len(b.procs)-1] {
				if err := catalogue.SameAnswer(ctx, b.client, b.server(proc, org), b.server(b.baseline(), org), p); err != nil {
					return err
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
