package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

var (
	cleanupMu sync.Mutex
	cleanups  []func()
)

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fleet: "+format+"\n", args...)
	cleanup()
	os.Exit(1)
}

func cleanup() {
	cleanupMu.Lock()
	defer cleanupMu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	cleanups = nil
}

func main() {
	pods := flag.Int("pods", 3, "eventapi processes behind HAProxy")
	rate := flag.Int("rate", 60, "requests per second, constant")
	steady := flag.Duration("steady", 10*time.Second, "load before and between the scenarios")
	clients := flag.String("clients", "both", "how the load connects: keepalive (a pool of keep-alive connections), new (a new connection per request), or both (half the rate each, reported apart)")
	pgOutage := flag.Duration("pg-outage", 15*time.Second, "how long PostgreSQL stays stopped; longer than probe-period × probe-failures makes every pod unready; 0: a pg_ctl restart (about 0.3 s)")
	redisOutage := flag.Duration("redis-outage", 10*time.Second, "how long the Redis master stays dead")
	period := flag.Duration("probe-period", 5*time.Second, "readiness probe period (the chart's readiness.periodSeconds)")
	fall := flag.Int("probe-failures", 2, "readiness failure threshold (the chart's readiness.failureThreshold)")
	probeTimeout := flag.Duration("probe-timeout", 3*time.Second, "readiness probe timeout (the chart's readiness.timeoutSeconds)")
	drain := flag.Duration("drain-delay", 12*time.Second, "EVENTAPI_DRAIN_DELAY of the pods: longer than probe-period × probe-failures, so HAProxy stops routing before the listener closes")
	dbParams := flag.String("db-params", "", "pgx parameters added to the pods' database URL through PgBouncer (EVENTAPI_DATABASE_POOLER=transaction already makes the service pooler-safe)")
	scenarios := flag.String("scenarios", "rolling,redis,postgres,kill", "scenarios to run, in order: rolling (SIGTERM each pod in turn), redis (a Redis master killed), postgres (PostgreSQL stopped), kill (SIGKILL of one pod)")
	flag.BoolVar(&forceDetail, "v", false, "print what the run saw for every expectation, met or not")
	keep := flag.Bool("keep", false, "keep the temporary directory (logs) after the run")
	flag.IntVar(&portBase, "port-base", 0, "take every port (PostgreSQL, PgBouncer, the Redis Cluster's 6 nodes and their bus ports, the pods' API and metrics ports, HAProxy) from here upwards, about 12 + 2 per pod; 0: ports the kernel picks and a Redis Cluster in 21000-38999")
	flag.Parse()
	kinds, err := newClients(*clients)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		os.Exit(2)
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() { <-sig; fatalf("interrupted") }()

	repo, err := os.Getwd()
	must(err)
	dir, err := os.MkdirTemp("", "eventapi-fleet-")
	must(err)
	if !*keep {
		// Kept when an expectation failed: the pods' logs say why.
		cleanups = append(cleanups, func() {
			if !keepLogs {
				_ = os.RemoveAll(dir)
			}
		})
	} else {
		fmt.Println("logs in", dir)
	}
	bin := filepath.Join(dir, "eventapi")
	step("build eventapi")
	build := exec.Command("go", "build", "-o", bin, "./cmd/eventapi")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	must(build.Run())

	step("PostgreSQL (own instance), PgBouncer (transaction mode), Redis Cluster (3 masters + 3 replicas)")
	pg := startPostgres(dir)
	cleanups = append(cleanups, pg.stop)
	bouncer := startPgBouncer(dir, pg)
	cleanups = append(cleanups, bouncer.stop)
	rc := startRedisCluster(repo, dir)
	cleanups = append(cleanups, func() { _, _ = rc.run("stop") })

	direct := []string{"EVENTAPI_DATABASE_URL=" + pg.url(), "OTEL_SDK_DISABLED=true"}
	step("migrate (direct connection) and seed the demo organization")
	must(cliRun(bin, direct, nil, "migrate", "up"))
	var demo struct {
		OrgID   string `json:"organization_id"`
		LiveKey string `json:"live_key"`
	}
	must(cliRun(bin, direct, &demo, "demo", "--output", "json"))

	env := []string{
		"EVENTAPI_DATABASE_URL=" + bouncer.url(*dbParams),
		"EVENTAPI_MIGRATE_DATABASE_URL=" + pg.url(),
		"EVENTAPI_DATABASE_POOLER=transaction",
		"EVENTAPI_REDIS_URL=" + rc.url,
		"EVENTAPI_V2_RATE_LIMIT=1000000",
		"EVENTAPI_DRAIN_DELAY=" + drain.String(),
		"EVENTAPI_SHUTDOWN_TIMEOUT=" + shutdownTimeout.String(),
		"EVENTAPI_LOG_LEVEL=warn",
		"OTEL_SDK_DISABLED=true",
	}
	step(fmt.Sprintf("%d pods", *pods))
	var ps []*pod
	for i := 0; i < *pods; i++ {
		p := &pod{name: fmt.Sprintf("pod%d", i+1), port: freePort(), metrics: freePort(), bin: bin, log: filepath.Join(dir, fmt.Sprintf("pod%d.log", i+1)),
			env: env[:len(env):len(env)]}
		must(p.start())
		ps = append(ps, p)
		cleanups = append(cleanups, func() { _ = p.stop(30 * time.Second) })
	}
	step("HAProxy (TCP, /readyz checks every " + period.String() + ", no retries, no redispatch)")
	lb := startHAProxy(dir, ps, *period, *fall, *probeTimeout)
	cleanups = append(cleanups, lb.stop)
	base := fmt.Sprintf("http://127.0.0.1:%d", lb.port)
	fx := loadFixture(base, demo.LiveKey)
	fx.org = demo.OrgID

	cfg := settings{period: *period, fall: *fall, probeTimeout: *probeTimeout, drain: *drain, shutdown: shutdownTimeout,
		pgOutage: *pgOutage, redisOutage: *redisOutage}
	ex := &expectations{}
	l := newLoad(base, fx, *rate, kinds)
	rotation := watchRotation(lb)
	degraded := watchMetrics(ps)
	probe := &limitProbe{bin: bin, env: direct, base: base}
	limits := map[string]string{}
	var steadies []string
	l.run()
	began := time.Now()
	ended := map[string]time.Time{} // when a phase ended: the next one began
	current := ""
	phase := func(name string) {
		if current != "" {
			ended[current] = time.Now()
		}
		current = name
		degraded.phase(name)
		l.setPhase(name)
		rotation.phase(name)
		step(name)
	}

	phase("steady")
	steadies = append(steadies, "steady")
	time.Sleep(*steady)
	var notes []string
	for _, s := range strings.Split(*scenarios, ",") {
		s = strings.TrimSpace(s)
		switch s {
		case "rolling":
			phase("rolling restart")
			notes = append(notes, rollingRestart(l, ps, rotation, cfg, ex))
		case "redis":
			phase("redis master killed")
			notes = append(notes, killRedisMaster(l, rc, fx, rotation, cfg, ex))
		case "postgres":
			if *pgOutage > 0 {
				phase("postgresql down " + pgOutage.String())
			} else {
				phase("postgresql restarted")
			}
			notes = append(notes, postgresOutage(l, pg, ps, rotation, cfg, ex))
		case "kill":
			phase("pod killed")
			notes = append(notes, killPod(l, ps[len(ps)-1], rotation, cfg, ex))
		default:
			fatalf("unknown scenario %q", s)
		}
		name := "steady after " + s
		phase(name)
		steadies = append(steadies, name)
		time.Sleep(*steady)
		var applied bool
		limits[name], applied = probe.check()
		// docs/edge.md, "When Redis is unavailable": recovery is automatic,
		// the next requests are limited again; no restart.
		ex.expect(name, "rate limits are applied (the sixth request at a limit of 5 is a 429)", applied, "%s", strings.TrimSpace(limits[name]))
	}
	ended[current] = time.Now()
	l.halt() // waits for the keyed writes' retries too
	rotation.halt()
	degraded.halt()

	rs := l.snapshot()
	// A fleet with every pod, PostgreSQL and Redis healthy answers every
	// request of the load: none fails between the scenarios. A request
	// still in flight when the next scenario began (its fault may have
	// failed it) does not count.
	for _, name := range steadies {
		var fails []result
		var from time.Time
		for _, r := range rs {
			if r.phase == name && r.client != "-" && r.done.Before(ended[name]) {
				if from.IsZero() {
					from = r.sent
				}
				if r.failed() {
					fails = append(fails, r)
				}
			}
		}
		ex.expect(name, "no request fails with every service up", len(fails) == 0, "%s", describe(fails, from))
	}
	counts, err := reservationsByKey(pg)
	if err != nil {
		ex.expect("all", "the keyed writes' records can be counted in the database", false, "%v", err)
	} else {
		checkExactlyOnce(ex, l.keyedWrites(), counts)
	}

	fmt.Printf("\n== fleet: %d pods, %d req/s (clients: %s) for %v, HAProxy checks /readyz every %v (fall %d), drain delay %v\n",
		*pods, *rate, *clients, time.Since(began).Round(time.Second), *period, *fall, *drain)
	seen := map[string]bool{}
	for _, r := range rs {
		if !seen[r.phase] {
			seen[r.phase] = true
			fmt.Printf("\n[%s] pods out of rotation at most: %d\n", r.phase, rotation.maxDown(r.phase))
			for _, k := range kinds {
				fmt.Printf(" %s client:\n%s\n", k.name, summary(r.phase, k.name, rs))
			}
			if n := dropped(r.phase, rs); n > 0 {
				fmt.Printf(" dropped by the load itself (256 in flight): %d\n", n)
			}
			fmt.Println(degraded.summary(r.phase))
			if s, ok := limits[r.phase]; ok {
				fmt.Println(s)
			}
		}
	}
	fmt.Println()
	for _, n := range notes {
		fmt.Println(n)
	}
	verdict, failed := ex.report()
	keepLogs = failed > 0
	cleanup()
	fmt.Print("\n" + verdict)
	if failed > 0 {
		fmt.Println("logs (pods, HAProxy, PgBouncer, PostgreSQL, Redis) kept in", dir)
		os.Exit(1)
	}
}

// keepLogs keeps the temporary directory at the end of a run whose
// expectations failed.
var keepLogs bool

// shutdownTimeout is the pods' EVENTAPI_SHUTDOWN_TIMEOUT.
const shutdownTimeout = 10 * time.Second

// settings are the configured periods the scenarios derive their
// expectations' bounds from.
type settings struct {
	period, probeTimeout time.Duration // HAProxy's check interval and timeout (the chart's readiness probe)
	fall                 int           // checks failed before HAProxy takes a pod out
	drain, shutdown      time.Duration // the pods' EVENTAPI_DRAIN_DELAY and EVENTAPI_SHUTDOWN_TIMEOUT
	pgOutage             time.Duration
	redisOutage          time.Duration
}

func step(s string) { fmt.Fprintf(os.Stderr, "%s fleet: %s\n", time.Now().Format("15:04:05"), s) }

// cliRun runs the eventapi CLI; out, when given, receives its JSON output.
func cliRun(bin string, env []string, out any, args ...string) error {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("eventapi %s: %w", strings.Join(args, " "), err)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// loadFixture lists the demo organization's pick lists, items and
// equipment through the balancer.
func loadFixture(base, key string) *fixture {
	fx := &fixture{key: key}
	list := func(path string) []string {
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		must(err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var page struct{ Data []struct{ ID string } }
		if resp.StatusCode != 200 || json.Unmarshal(b, &page) != nil || len(page.Data) == 0 {
			fatalf("GET %s: %d %s", path, resp.StatusCode, b)
		}
		ids := make([]string, len(page.Data))
		for i, d := range page.Data {
			ids[i] = d.ID
		}
		return ids
	}
	fx.pickLists = list("/api/v2/pick_lists?limit=100")
	fx.equipment = list("/api/v2/equipment?limit=100")
	for _, id := range fx.pickLists {
		req, _ := http.NewRequest("GET", base+"/api/v2/pick_lists/"+id+"?expand=items", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		must(err)
		var pl struct {
			Data struct {
				Items []struct{ ID, Stage string }
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&pl)
		_ = resp.Body.Close()
		must(err)
		for _, it := range pl.Data.Items {
			fx.items = append(fx.items, it.ID)
			fx.itemStages = append(fx.itemStages, it.Stage)
		}
	}
	if len(fx.items) == 0 {
		fatalf("the demo pick lists have no items")
	}
	return fx
}
