// Package logging measures what the access log's line costs one request
// (docs/observability.md, "Traces and log lines"): the JSON line written
// at once, one write system call each (telemetry.NewLogger), against lines
// gathered and written together (telemetry.NewBufferedLogger, what `eventapi
// serve` uses), in one run. The lines go to /dev/null and to a pipe read by
// another process (`cat`), as a container runtime reads a pod's stdout;
// that reader's CPU counts too. Measured and reported, never asserted.
//
//	go test -run '^$' -bench . -benchtime 200000x -count 3 ./bench/logging/
package logging

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/eventapi/eventapi/bench/catalogue"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// BenchmarkAccessLine logs the access log's line of one request per
// operation. Metrics: cpu-µs/line is this process's CPU per line (the
// benchmark's loop, the JSON encoding, the writes), reader-µs/line the
// pipe's reader's.
func BenchmarkAccessLine(b *testing.B) {
	for _, sink := range []string{"devnull", "pipe"} {
		for _, buffered := range []bool{false, true} {
			name := sink + "/unbuffered"
			if buffered {
				name = sink + "/buffered"
			}
			b.Run(name, func(b *testing.B) {
				w, wait := open(b, sink)
				log, stop := telemetry.NewLogger(w, "info"), func() error { return nil }
				if buffered {
					log, stop = telemetry.NewBufferedLogger(w, "info")
				}
				ctx := telemetry.WithRequestID(context.Background(), "0191d3f6-6a5e-7cc1-8a51-3f9e9e2b1c11")
				attrs := []slog.Attr{
					slog.String("method", "GET"), slog.String("path", "/api/v2/clients/0191d3f6-6a5e-7cc1-8a51-3f9e9e2b1c11"),
					slog.String("route", "/api/v2/clients/{id}"), slog.Int("status", 200), slog.Float64("duration_ms", 0.412),
					slog.String("organization_id", "0191d3f6-6a5e-7cc1-8a51-3f9e9e2b1c12"),
				}
				cpu0 := ownCPU(b)
				b.ResetTimer()
				for range b.N {
					log.LogAttrs(ctx, slog.LevelInfo, "request", attrs...)
				}
				if err := stop(); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				perLine := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) / float64(b.N) }
				b.ReportMetric(perLine(ownCPU(b)-cpu0), "cpu-µs/line")
				_ = w.Close()
				if reader, ok := wait(); ok {
					b.ReportMetric(perLine(reader), "reader-µs/line")
				}
			})
		}
	}
}

// open returns the file to log to and a function that, once the file is
// closed, waits for the process reading it to exit and returns that
// process's CPU (false: no reader).
func open(b *testing.B, sink string) (*os.File, func() (time.Duration, bool)) {
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	if sink == "devnull" {
		return devnull, func() (time.Duration, bool) { return 0, false }
	}
	r, w, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	cat := exec.Command("cat")
	cat.Stdin, cat.Stdout = r, devnull // files: the child reads and writes them itself
	if err := cat.Start(); err != nil {
		b.Fatal(err)
	}
	_ = r.Close()
	_ = devnull.Close()
	return w, func() (time.Duration, bool) {
		if err := cat.Wait(); err != nil {
			b.Fatal(err)
		}
		return cat.ProcessState.UserTime() + cat.ProcessState.SystemTime(), true
	}
}

func ownCPU(b *testing.B) time.Duration {
	d, err := catalogue.ReadCPU(0)
	if err != nil {
		b.Fatal(err)
	}
	return d
}
