package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/eventapi/eventapi/bench/catalogue"
)

// summary is the median of each figure over a set of runs.
type summary struct {
	rps                                                   float64
	p50, p99, cpuPerReq, dbPerReq, redisPerReq, genPerReq time.Duration
	errors                                                int64
	firstErr                                              string
	peakRSS                                               int64 // the highest of the runs' peaks
	peakFile                                              int64 // peakRSS's part mapped from files
}

func summarize(ss []sample) summary {
	var rps, p50, p99, cpu, db, redis, gen []float64
	var out summary
	for _, s := range ss {
		rps = append(rps, s.rps)
		p50 = append(p50, float64(s.p50))
		p99 = append(p99, float64(s.p99))
		cpu = append(cpu, float64(s.cpuPerReq))
		db = append(db, float64(s.dbPerReq))
		redis = append(redis, float64(s.redisPerReq))
		gen = append(gen, float64(s.genPerReq))
		if s.mem.RSS > out.peakRSS {
			out.peakRSS, out.peakFile = s.mem.RSS, s.mem.File
		}
		out.errors += s.errors
		if out.firstErr == "" {
			out.firstErr = s.firstErr
		}
	}
	out.rps = catalogue.Median(rps)
	out.p50 = time.Duration(catalogue.Median(p50))
	out.p99 = time.Duration(catalogue.Median(p99))
	out.cpuPerReq = time.Duration(catalogue.Median(cpu))
	out.dbPerReq = time.Duration(catalogue.Median(db))
	out.redisPerReq = time.Duration(catalogue.Median(redis))
	out.genPerReq = time.Duration(catalogue.Median(gen))
	return out
}

// total is all the CPU a request cost on the machine, as measured: the
// server, PostgreSQL, Redis and the load generator. On a saturated machine
// the maximum throughput is about cores / total.
func (s summary) total() time.Duration { return s.cpuPerReq + s.dbPerReq + s.redisPerReq + s.genPerReq }

func (s summary) rpsCell() string { return fmt.Sprintf("%.0f", s.rps) }
func (s summary) errCell() string { return errCell(s.errors, s.firstErr) }

func errCell(n int64, first string) string {
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", n, first)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }
func us(d time.Duration) string { return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond)) }
func mib(n int64) string        { return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20)) }

func floats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(parts, " ")
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "MISSED"
}

// tableWriter prints aligned rows on stdout.
type tableWriter struct{ w *tabwriter.Writer }

func table(header ...string) tableWriter {
	t := tableWriter{tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)}
	t.row(header...)
	return t
}

func (t tableWriter) row(cells ...string) { fmt.Fprintln(t.w, strings.Join(cells, "\t")) }
func (t tableWriter) flush()              { _ = t.w.Flush() }
