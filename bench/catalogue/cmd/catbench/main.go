// Command catbench measures GET /api/v2/clients/{id} and GET
// /api/v2/clients?limit=25 through the full eventapi chain (the app of
// api/server with real PostgreSQL, real Redis and real auth, wired as
// `eventapi serve` does) against two baselines in the same run on the same
// machine, and reports ratios: a bare net/http + pgxpool server running the
// same SQL and encoding in Go (baseline), and one that has PostgreSQL build
// the JSON (json_build_object/json_agg, as PostgREST and pREST do: pgjson).
// It also measures, on the chain only, the 1000-item pick-list manifest
// (GET /api/v2/pick_lists/{id}?expand=items,equipment,category) and a list
// page behind a deep cursor (90% into 100,000 clients).
//
// Both servers run as child processes (catbench re-executes itself), so the
// resident memory read from /proc/<pid>/status is each server's own. Load
// goes only to loopback addresses and every run is bounded in count and time.
//
//	go run ./bench/catalogue/cmd/catbench [-rounds 5] [-duration 3s] [-concurrency 16]
//
// -chain-db-params adds a second chain whose database URL carries extra pgx
// settings (for example default_query_exec_mode=exec), measured in the same
// run; -cpuprofile-chain writes the chain's CPU profile for go tool pprof.
//
// It creates a fresh database (dropped at the end) on the PostgreSQL of
// EVENTAPI_TEST_DATABASE_URL (default the local one) and uses the Redis of
// EVENTAPI_TEST_REDIS_URL (default 127.0.0.1:6379); their CPU is read from
// the processes listening at those addresses. The detail, list and manifest
// load is spread over -tenants organizations, each at the real limit (1000
// per 60 s), so the limiter works as in production; the two search-scaling
// organizations (also the deep cursor's) keep a raised limit. Targets are
// reported, never asserted.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

type options struct {
	adminURL, redisURL                string
	rounds, searchRounds              int
	duration, warmup, halfDuration    time.Duration
	concurrency, openWorkers, dbConns int
	small, big                        int
	maxRequests                       int64
	cpuProfileChain, cpuProfileBase   string
	cpuProfilePGJSON, memProfileChain string
	cpuProfileNoLog                   string
	tenants, tenantClients            int
	manifestOrgs, manifestItems       int
	halfRates                         string
	phases                            string
	chainDBParams                     string
	chainEnv                          string
	endpoints                         string
	requestLogOff                     bool
	pairs                             int
	pairDuration                      time.Duration
	pairWith                          string
}

func main() {
	if role := os.Getenv(roleEnv); role != "" {
		if err := runRole(role); err != nil {
			fmt.Fprintf(os.Stderr, "catbench %s: %v\n", role, err)
			os.Exit(1)
		}
		return
	}
	o := parseFlags()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, o)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "catbench:", err)
		os.Exit(1)
	}
}

func parseFlags() options {
	var o options
	flag.IntVar(&o.rounds, "rounds", 5, "measured rounds per endpoint and server for the maximum (medians are reported)")
	flag.IntVar(&o.searchRounds, "search-rounds", 3, "measured rounds per case of the search scaling test")
	flag.DurationVar(&o.duration, "duration", 3*time.Second, "length of one measured closed-loop run")
	flag.DurationVar(&o.warmup, "warmup", time.Second, "warm-up before each endpoint's runs")
	flag.DurationVar(&o.halfDuration, "half-duration", 8*time.Second, "length of the open-loop run at half the maximum")
	flag.IntVar(&o.concurrency, "concurrency", 16, "connections of the closed loop")
	flag.IntVar(&o.openWorkers, "open-workers", 64, "maximum requests in flight in the open loop")
	flag.IntVar(&o.dbConns, "db-conns", 20, "PostgreSQL pool size of both servers (the app's EVENTAPI_DB_MAX_CONNS default)")
	flag.IntVar(&o.small, "clients", 1000, "clients of the main organization")
	flag.IntVar(&o.big, "big", 100_000, "clients of the large organization (search scaling)")
	flag.Int64Var(&o.maxRequests, "max-requests", 2_000_000, "upper bound of requests in one run")
	flag.StringVar(&o.cpuProfileChain, "cpuprofile-chain", "", "write the chain server's CPU profile (whole run) to this file")
	flag.StringVar(&o.memProfileChain, "memprofile-chain", "", "write the chain server's allocation profile (whole run; pprof -sample_index=alloc_space) to this file")
	flag.StringVar(&o.cpuProfileNoLog, "cpuprofile-chain-no-request-log", "", "write the CPU profile of the chain that logs no request (-request-log-off) to this file")
	flag.StringVar(&o.cpuProfileBase, "cpuprofile-baseline", "", "write the baseline server's CPU profile to this file")
	flag.StringVar(&o.cpuProfilePGJSON, "cpuprofile-pgjson", "", "write the PostgreSQL-JSON server's CPU profile to this file")
	flag.StringVar(&o.phases, "phases", "max,half,search,pairs", "comma-separated phases to run: max, half, search, pairs")
	flag.IntVar(&o.pairs, "pairs", 12, "pairs of runs per endpoint and server of the paired phase")
	flag.DurationVar(&o.pairDuration, "pair-duration", 1500*time.Millisecond, "length of each run of a pair")
	flag.StringVar(&o.pairWith, "pair-with", "", "comma-separated servers the paired phase compares the chain with (default all: "+
		"chain-no-request-log, baseline, pgjson)")
	flag.StringVar(&o.endpoints, "endpoints", "detail,list,manifest,deep",
		"comma-separated endpoints of the max, half and pairs phases: detail, list, manifest, deep")
	flag.IntVar(&o.tenants, "tenants", 2400, "organizations carrying the detail, list and manifest load, each at the real "+
		"limit of 1000 per 60 s (2400 admit 40,000 req/s in all)")
	flag.IntVar(&o.tenantClients, "tenant-clients", 50, "clients of each tenant")
	flag.IntVar(&o.manifestOrgs, "manifest-orgs", 20, "tenants that get a manifest pick list (the manifest's load rotates over them)")
	flag.IntVar(&o.manifestItems, "manifest-items", 1000, "items of each manifest pick list")
	flag.StringVar(&o.halfRates, "half-rates", "detail=2000,list=1500,manifest=20,deep=1000",
		"fixed offered rate (req/s) of the open-loop phase per endpoint")
	flag.StringVar(&o.chainDBParams, "chain-db-params", "",
		"extra pgx parameters for the chain's database URL only, to try a pool setting (e.g. default_query_exec_mode=exec)")
	flag.StringVar(&o.chainEnv, "chain-env", "",
		"NAME=VALUE: add a chain whose process has this environment variable too, to try a setting in the same run "+
			"(the paired phase compares it with the chain when -pair-with names it)")
	flag.BoolVar(&o.requestLogOff, "request-log-off", false,
		"add a chain that logs no request, to measure the request log's cost in the same run")
	flag.StringVar(&o.adminURL, "db", "", "PostgreSQL admin URL (default EVENTAPI_TEST_DATABASE_URL or the local server)")
	flag.StringVar(&o.redisURL, "redis", "", "Redis URL (default EVENTAPI_TEST_REDIS_URL or 127.0.0.1:6379)")
	flag.Parse()
	return o
}

func (o options) has(phase string) bool { return listed(o.phases, phase) }

// listed reports whether the comma-separated list holds name.
func listed(list, name string) bool {
	for _, p := range strings.Split(list, ",") {
		if strings.TrimSpace(p) == name {
			return true
		}
	}
	return false
}
