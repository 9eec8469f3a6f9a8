package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/telemetry"
)

func serveCmd(ctx context.Context, args []string, stderr io.Writer) error {
	fs, output := newFlags("serve")
	migrate := fs.Bool("migrate", false, "apply pending migrations before serving")
	if _, err := parse(fs, output, args); err != nil {
		return err
	}
	cfg, err := config.Load()
	if err != nil {
		return fmt.Errorf("configuration:\n%w", err)
	}
	log := telemetry.NewLogger(os.Stdout, cfg.LogLevel)
	shutdownTracing, exporting, err := telemetry.SetupTracing(ctx, "eventapi")
	if err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	defer shutdownTracing(context.WithoutCancel(ctx))
	shutdownMetrics, _, err := telemetry.SetupMetrics(ctx, "eventapi")
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	defer shutdownMetrics(context.WithoutCancel(ctx))
	if *migrate {
		db, err := database.Open(ctx, cfg.DatabaseURL, database.Options{MaxOpenConns: 2})
		if err != nil {
			return err
		}
		m, err := database.NewMigrator(db)
		if err == nil {
			_, err = m.Up(ctx)
		}
		_ = db.Close()
		if err != nil {
			return err
		}
	}
	svc, err := server.Open(ctx, cfg, log, server.Options{Tracing: exporting, RedisTimeout: cfg.RedisTimeout})
	if err != nil {
		return err
	}
	defer svc.Close()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	log.Info("eventapi listening", "addr", ln.Addr().String(), "redis", cfg.RedisURL != "", "tracing", exporting)
	err = server.Run(ctx, svc.App, ln, cfg.ShutdownTimeout)
	log.Info("eventapi stopped", "error", err)
	return err
}
