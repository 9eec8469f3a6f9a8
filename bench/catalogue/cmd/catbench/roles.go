package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/bench/catalogue"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// The server roles (chain, baseline, pgjson) run in child processes of catbench (re-executed with
// roleEnv set), so each server's memory and CPU are its own.
const (
	roleEnv       = "CATBENCH_ROLE"
	cpuProfileEnv = "CATBENCH_CPUPROFILE"
	memProfileEnv = "CATBENCH_MEMPROFILE"
	baseDBEnv     = "CATBENCH_DATABASE_URL"
	baseConnsEnv  = "CATBENCH_DB_MAX_CONNS"
	// requestLogEnv=off starts a chain that logs no request (-request-log-off).
	requestLogEnv = "CATBENCH_REQUEST_LOG"
	listeningLine = "catbench listening "
)

// runRole serves as the chain or the baseline until SIGTERM.
func runRole(role string) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if path := os.Getenv(cpuProfileEnv); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer func() { pprof.StopCPUProfile(); _ = f.Close() }()
	}
	if path := os.Getenv(memProfileEnv); path != "" {
		// Every allocation of the run (go tool pprof -sample_index=alloc_space).
		defer func() {
			if f, err := os.Create(path); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				_ = f.Close()
			}
		}()
	}
	switch role {
	case "chain":
		return serveChain(ctx)
	case "baseline", "pgjson":
		return serveBaseline(ctx, role)
	}
	return fmt.Errorf("unknown role %q", role)
}

// serveChain is the wiring of `eventapi serve` (cmd/eventapi/serve.go):
// configuration from the environment, JSON logs on stdout, tracing from
// OTEL_*, server.Open, server.Run. Only the listening line is added.
func serveChain(ctx context.Context) error {
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	log, stopLog := telemetry.NewBufferedLogger(os.Stdout, cfg.LogLevel)
	defer func() { _ = stopLog() }()
	shutdownTracing, exporting, err := telemetry.SetupTracing(ctx, "eventapi")
	if err != nil {
		return err
	}
	defer shutdownTracing(context.WithoutCancel(ctx))
	logOff := os.Getenv(requestLogEnv) == "off"
	svc, err := server.Open(ctx, cfg, log, server.Options{Tracing: exporting, RequestLogOff: logOff})
	if err != nil {
		return err
	}
	defer func() {
		_ = svc.Close() // flushes the request log
		if !logOff {
			// A log that dropped records under the load measured cheaper
			// than it is: the report shows its counts (forwarded stderr).
			fmt.Fprintf(os.Stderr, "request log: %d records written, %d dropped\n",
				svc.RequestLog.Written(), svc.RequestLog.Dropped())
		}
	}()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, listeningLine+ln.Addr().String())
	return server.Run(ctx, svc.App, ln, cfg.ShutdownTimeout)
}

// serveBaseline serves catalogue.Baseline (role baseline) or
// catalogue.PGJSON (role pgjson) with net/http on loopback.
func serveBaseline(ctx context.Context, role string) error {
	var conns int32 = 20
	if _, err := fmt.Sscan(os.Getenv(baseConnsEnv), &conns); err != nil || conns <= 0 {
		conns = 20
	}
	pool, err := catalogue.OpenPool(ctx, os.Getenv(baseDBEnv), conns)
	if err != nil {
		return err
	}
	defer pool.Close()
	key, err := catalogue.CursorKey(ctx, pool)
	if err != nil {
		return err
	}
	var h http.Handler = (&catalogue.Baseline{Pool: pool, Cursors: storage.NewCursors(key)}).Handler()
	if role == "pgjson" {
		h = (&catalogue.PGJSON{Pool: pool, Cursors: storage.NewCursors(key)}).Handler()
	}
	srv := &http.Server{Handler: h, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second,
		IdleTimeout: 120 * time.Second}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintln(os.Stderr, listeningLine+ln.Addr().String())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
