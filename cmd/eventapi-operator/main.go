// Command eventapi-operator runs the Kubernetes operator of eventapi: it
// reconciles ApiKey and SandboxOrganization resources (group eventapi.io)
// against the eventapi PostgreSQL database named by EVENTAPI_DATABASE_URL.
//
//	eventapi-operator [--leader-elect] [--metrics-bind-address :8080]
//	                  [--health-probe-bind-address :8081] [--watch-namespaces a,b]
//	                  [--log-level info]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/go-logr/logr"
	"github.com/uptrace/bun"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/eventapi/eventapi/operator/manager"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/telemetry"
)

func main() {
	err := run(ctrl.SetupSignalHandler(), os.Args[1:], os.Stderr, os.Getenv)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "eventapi-operator:", err)
		os.Exit(1)
	}
}

type flags struct {
	metricsAddr, probeAddr, namespaces, logLevel, leaderNamespace, leaderID string
	leaderElect                                                             bool
	dbMaxConns                                                              int
}

func parseFlags(args []string, stderr io.Writer) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("eventapi-operator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.metricsAddr, "metrics-bind-address", ":8080", "address of the Prometheus metrics endpoint (0 disables)")
	fs.StringVar(&f.probeAddr, "health-probe-bind-address", ":8081", "address of /healthz and /readyz (0 disables)")
	fs.BoolVar(&f.leaderElect, "leader-elect", false, "elect a leader so that only one replica reconciles")
	fs.StringVar(&f.leaderNamespace, "leader-election-namespace", "", "namespace of the leader election Lease (default: the pod's namespace)")
	fs.StringVar(&f.leaderID, "leader-election-id", manager.LeaderElectionID, "name of the leader election Lease: one per release sharing a namespace")
	fs.StringVar(&f.namespaces, "watch-namespaces", "", "comma-separated namespaces to watch (default: all)")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.IntVar(&f.dbMaxConns, "db-max-conns", 4, "PostgreSQL connection pool size")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() != 0 {
		return f, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if _, err := telemetry.ParseLevel(f.logLevel); err != nil {
		return f, fmt.Errorf("--log-level %v", err)
	}
	// database.Open reads a pool size below 1 as its own default (20),
	// five times this one: refused rather than silently widened.
	if f.dbMaxConns < 1 {
		return f, fmt.Errorf("--db-max-conns must be at least 1")
	}
	return f, nil
}

// managersPerProcess is how many managers one process may build: the
// binary builds one; its test sets more, since go test -count=2 runs the
// command twice in one process, and controller-runtime refuses a second
// controller of one name in a process unless told.
var managersPerProcess = 1

func run(ctx context.Context, args []string, stderr io.Writer, getenv func(string) string) error {
	f, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	slogger := telemetry.NewLogger(stderr, f.logLevel)
	logger := logr.FromSlogHandler(slogger.Handler())
	ctrl.SetLogger(logger)
	klog.SetLogger(logger)

	// The API's rules for the URL, read before waiting for the database:
	// a URL the driver does not take (a malformed one, an sslrootcert file
	// that is not mounted, which the driver reads while parsing) is a
	// mistake no wait mends.
	dbURL := getenv("EVENTAPI_DATABASE_URL")
	if err := config.CheckDatabaseURL("EVENTAPI_DATABASE_URL", dbURL, true); err != nil {
		return err
	}
	// Behind a transaction pooler (PgBouncer) the connection must not send
	// startup parameters or keep session state, as for the API.
	pooler, err := config.DatabasePooler(getenv)
	if err != nil {
		return err
	}
	// Read before waiting for the database: a missing or broken kubeconfig
	// is a mistake no wait mends, and it ends the start at once instead of
	// hiding behind "the database is unreachable" (docs/operator.md,
	// Running it).
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("kubernetes client configuration: %w", err)
	}
	stopProbes, err := serveProbesWhileStarting(f.probeAddr, slogger)
	if err != nil {
		return err
	}
	db, err := openDatabase(ctx, slogger, dbURL, database.Options{MaxOpenConns: f.dbMaxConns, Pooler: pooler})
	stopProbes()
	if err != nil {
		return err
	}
	defer db.Close()

	mgr, err := manager.New(cfg, manager.Options{
		DB: db, Namespaces: splitList(f.namespaces), MetricsAddr: f.metricsAddr, ProbeAddr: f.probeAddr,
		LeaderElection: f.leaderElect, LeaderElectionNamespace: f.leaderNamespace, LeaderElectionID: f.leaderID,
		SkipNameValidation: managersPerProcess > 1,
	})
	if err != nil {
		return err
	}
	slogger.Info("eventapi-operator starting", "leader_election", f.leaderElect, "namespaces", f.namespaces,
		"metrics", f.metricsAddr, "probes", f.probeAddr)
	return mgr.Start(ctx)
}

// openDatabase opens the database, waiting while it is unreachable
// (database.UntilReachable: retries 1 s, 2 s, … up to every 10 s, each
// failure logged), so that an operator started during a restart of
// PostgreSQL or PgBouncer does not exit into the kubelet's crash-loop
// back-off. ctx (SIGTERM) ends the wait with an error that wraps both
// ctx's cause and the last failure. url has passed config.CheckDatabaseURL.
func openDatabase(ctx context.Context, log *slog.Logger, url string, opt database.Options) (*bun.DB, error) {
	var db *bun.DB
	err := database.UntilReachable(ctx, log, "eventapi-operator", func() (err error) {
		db, err = database.Open(ctx, url, opt)
		return err
	})
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("stopped while waiting for the database (%w): %w", context.Cause(ctx), err)
	}
	return db, err
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
