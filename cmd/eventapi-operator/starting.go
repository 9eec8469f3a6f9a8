package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// serveProbesWhileStarting answers the probes on addr while the operator
// waits for its database (docs/helm.md, "Rolling updates and draining"):
// /healthz 200, since the process runs and waits as it should, so the
// startup probe passes and the kubelet does not restart it into its
// crash-loop back-off during a long outage of PostgreSQL; /readyz 503. stop
// closes the listener and its connections before the manager takes the
// address for its own probes. An addr of "" or "0" (probes off) serves
// nothing; an address in use ends the start at once, as the manager's
// would later.
func serveProbesWhileStarting(addr string, log *slog.Logger) (stop func(), err error) {
	if addr == "" || addr == "0" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("health probe listener: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "starting: waiting for the database", http.StatusServiceUnavailable)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	srv.SetKeepAlivesEnabled(false)
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("the probes while starting stopped", "error", err)
		}
	}()
	// Close, not Shutdown: a connection that has sent nothing yet would
	// stay with this server and be answered "starting" later; the kubelet
	// sends its next probe on a new connection to the manager's server.
	return func() {
		_ = srv.Close()
		<-served
	}, nil
}
