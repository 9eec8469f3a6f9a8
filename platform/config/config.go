// Package config reads eventapi's configuration from the environment and
// validates it once at start, reporting every bad value in one error.
package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/eventapi/eventapi/platform/clientip"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// Config is the process configuration.
type Config struct {
	// DatabaseURL is a PostgreSQL URL (EVENTAPI_DATABASE_URL).
	DatabaseURL string
	// RedisURL is optional (EVENTAPI_REDIS_URL); empty selects the in-process edge store.
	RedisURL string
	// Addr is the listen address (EVENTAPI_ADDR, default :8080).
	Addr string
	// RateWindow is the rate-limit window (EVENTAPI_RATE_WINDOW, default 60s;
	// a whole number of seconds, at least 1s: rateWindow).
	RateWindow time.Duration
	// V1RateLimit is the v1 per-key limit per window (EVENTAPI_V1_RATE_LIMIT, default 100).
	V1RateLimit int
	// V2RateLimit is the default v2 per-organization limit per window (EVENTAPI_V2_RATE_LIMIT, default 1000).
	V2RateLimit int
	// V1Sunset is the date sent in the v1 Sunset header (EVENTAPI_V1_SUNSET).
	V1Sunset time.Time
	// ShutdownTimeout bounds graceful draining (EVENTAPI_SHUTDOWN_TIMEOUT, default 20s).
	ShutdownTimeout time.Duration
	// RequestTimeout bounds the database and Redis work of one API request
	// (EVENTAPI_REQUEST_TIMEOUT, default 20s, the shutdown timeout, under the 30 s write
	// timeout): past it the request is answered 503, even when a
	// connection stalls without failing. Longer than ShutdownTimeout is
	// accepted with a warning (Warnings).
	RequestTimeout time.Duration
	// LogLevel is debug, info, warn or error (EVENTAPI_LOG_LEVEL, default info).
	LogLevel string
	// DBMaxConns caps the PostgreSQL pool (EVENTAPI_DB_MAX_CONNS, default 20).
	DBMaxConns int
	// LargeReads is how many large responses (pick lists with their items)
	// one process builds at once (EVENTAPI_LARGE_READS, default
	// DefaultLargeReads, fitted to the memory limit by FitMemory).
	LargeReads int
	// largeReadsDefaulted says EVENTAPI_LARGE_READS was not set.
	largeReadsDefaulted bool
	// DrainDelay is how long a stopping process keeps serving while it
	// reports not ready (EVENTAPI_DRAIN_DELAY, default 5s; 0 disables).
	DrainDelay time.Duration
	// DatabasePooler names the connection pooler between the service and
	// PostgreSQL (EVENTAPI_DATABASE_POOLER: none or transaction).
	DatabasePooler string
	// MigrateDatabaseURL is a direct PostgreSQL URL for migrations
	// (EVENTAPI_MIGRATE_DATABASE_URL); empty uses DatabaseURL.
	MigrateDatabaseURL string
	// Redis tunes the edge store's Redis client (EVENTAPI_REDIS_*).
	Redis Redis
	// MetricsAddr is the Prometheus listener (EVENTAPI_METRICS_ADDR, default :9464).
	MetricsAddr string
	// The request log's settings are zero when unset: platform/requestlog
	// then applies its own defaults (DefaultRetention, DefaultBuffer,
	// DefaultInterval), stated there once.
	//
	// RequestLogRetention is how long the request log is kept
	// (EVENTAPI_REQUEST_LOG_RETENTION).
	RequestLogRetention time.Duration
	// RequestLogBuffer is how many request-log records may wait to be
	// written before new ones are dropped (EVENTAPI_REQUEST_LOG_BUFFER).
	RequestLogBuffer int
	// RequestLogFlushInterval is the longest a request-log record waits
	// before it is written (EVENTAPI_REQUEST_LOG_FLUSH_INTERVAL); half a
	// buffer of waiting records is written at once.
	RequestLogFlushInterval time.Duration
	// Webhook tunes webhook delivery (EVENTAPI_WEBHOOK_*).
	Webhook Webhook
	// TrustedProxies are the load balancers and proxies whose
	// X-Forwarded-For names the client (EVENTAPI_TRUSTED_PROXIES: CIDR
	// ranges and addresses, comma-separated; empty: the socket's peer is
	// the client).
	TrustedProxies clientip.Trusted
}

// Getenv abstracts os.Getenv for tests.
type Getenv func(string) string

// Load reads the configuration from the process environment.
func Load() (Config, error) { return FromEnv(os.Getenv) }

// FromEnv reads and validates the configuration using getenv.
func FromEnv(getenv Getenv) (Config, error) {
	var errs []error
	c := Config{
		DatabaseURL: getenv("EVENTAPI_DATABASE_URL"),
		RedisURL:    getenv("EVENTAPI_REDIS_URL"),
		Addr:        orDefault(getenv("EVENTAPI_ADDR"), ":8080"),
		LogLevel:    strings.ToLower(orDefault(getenv("EVENTAPI_LOG_LEVEL"), "info")),
	}
	if err := CheckDatabaseURL("EVENTAPI_DATABASE_URL", c.DatabaseURL, true); err != nil {
		errs = append(errs, err)
	}
	c.Redis = redisSettings(getenv, &errs)
	if c.RedisURL != "" {
		if _, err := ParseRedisURL(c.RedisURL, c.Redis.Cluster); err != nil {
			errs = append(errs, fmt.Errorf("EVENTAPI_REDIS_URL: %v", err))
		}
	}
	if _, _, err := splitAddr(c.Addr); err != nil {
		errs = append(errs, fmt.Errorf("EVENTAPI_ADDR %q: %v", c.Addr, err))
	}
	if _, err := telemetry.ParseLevel(c.LogLevel); err != nil {
		errs = append(errs, fmt.Errorf("EVENTAPI_LOG_LEVEL %v", err))
	}
	c.RateWindow = rateWindow(getenv, &errs)
	c.ShutdownTimeout = duration(getenv, "EVENTAPI_SHUTDOWN_TIMEOUT", 20*time.Second, &errs)
	c.RequestTimeout = duration(getenv, "EVENTAPI_REQUEST_TIMEOUT", 20*time.Second, &errs)
	c.V1RateLimit = positiveInt(getenv, "EVENTAPI_V1_RATE_LIMIT", 100, &errs)
	c.V2RateLimit = positiveInt(getenv, "EVENTAPI_V2_RATE_LIMIT", 1000, &errs)
	c.DBMaxConns = positiveInt(getenv, "EVENTAPI_DB_MAX_CONNS", 20, &errs)
	c.LargeReads = positiveInt(getenv, "EVENTAPI_LARGE_READS", DefaultLargeReads(0), &errs)
	c.largeReadsDefaulted = getenv("EVENTAPI_LARGE_READS") == ""
	c.MetricsAddr = orDefault(getenv("EVENTAPI_METRICS_ADDR"), ":9464")
	if _, _, err := splitAddr(c.MetricsAddr); err != nil {
		errs = append(errs, fmt.Errorf("EVENTAPI_METRICS_ADDR %q: %v", c.MetricsAddr, err))
	} else if sameListener(c.Addr, c.MetricsAddr) {
		errs = append(errs, fmt.Errorf("EVENTAPI_METRICS_ADDR %q must differ from EVENTAPI_ADDR: metrics have a listener of their own", c.MetricsAddr))
	}
	c.RequestLogRetention = duration(getenv, "EVENTAPI_REQUEST_LOG_RETENTION", 0, &errs)
	c.RequestLogBuffer = positiveInt(getenv, "EVENTAPI_REQUEST_LOG_BUFFER", 0, &errs)
	c.RequestLogFlushInterval = duration(getenv, "EVENTAPI_REQUEST_LOG_FLUSH_INTERVAL", 0, &errs)
	c.V1Sunset = date(getenv, "EVENTAPI_V1_SUNSET", time.Date(2027, 6, 30, 0, 0, 0, 0, time.UTC), &errs)
	scaleOut(getenv, &c, &errs)
	c.Webhook = webhookSettings(getenv, &errs)
	checkAutoMemLimit(getenv, &errs)
	if t, err := clientip.Parse(getenv("EVENTAPI_TRUSTED_PROXIES")); err != nil {
		errs = append(errs, fmt.Errorf("EVENTAPI_TRUSTED_PROXIES: %v", err))
	} else {
		c.TrustedProxies = t
	}
	return c, errors.Join(errs...)
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// sameListener reports whether two listen addresses would take one port: the
// same port (not 0, which picks a free one) on the same host, or on all
// hosts for either.
func sameListener(a, b string) bool {
	ha, pa, errA := splitAddr(a)
	hb, pb, errB := splitAddr(b)
	return errA == nil && errB == nil && pa != 0 && pa == pb && (ha == hb || ha == "" || hb == "")
}

func splitAddr(addr string) (string, int, error) {
	i := strings.LastIndex(addr, ":")
	if i < 0 {
		return "", 0, errors.New("must be host:port or :port")
	}
	p, err := strconv.Atoi(addr[i+1:])
	if err != nil || p < 0 || p > 65535 {
		return "", 0, errors.New("port must be a number from 0 to 65535")
	}
	return addr[:i], p, nil
}

func duration(getenv Getenv, name string, def time.Duration, errs *[]error) time.Duration {
	v := getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		*errs = append(*errs, fmt.Errorf("%s %q must be a positive duration such as 60s", name, v))
		return def
	}
	return d
}

// rateWindow reads EVENTAPI_RATE_WINDOW: a whole number of seconds, at least
// one (docs/edge.md, "Rate limits"). The Redis limiter keeps the window in
// whole microseconds (platform/edge/admit.go), so a window under 1µs was 0
// there and every request was admitted; and a 429 reports window_seconds,
// which a whole second keeps exact (a 500ms window reported 0).
func rateWindow(getenv Getenv, errs *[]error) time.Duration {
	const name = "EVENTAPI_RATE_WINDOW"
	def := time.Minute
	d := duration(getenv, name, def, errs)
	if d < time.Second || d%time.Second != 0 {
		*errs = append(*errs, fmt.Errorf("%s %q must be a whole number of seconds, at least 1s (such as 60s): "+
			"429 responses report it in whole seconds, and a window under 1µs would switch rate limiting off",
			name, getenv(name)))
		return def
	}
	return d
}

func positiveInt(getenv Getenv, name string, def int, errs *[]error) int {
	v := getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		*errs = append(*errs, fmt.Errorf("%s %q must be a positive integer", name, v))
		return def
	}
	return n
}

func date(getenv Getenv, name string, def time.Time, errs *[]error) time.Time {
	v := getenv(name)
	if v == "" {
		return def
	}
	t, err := time.Parse("2006-01-02", v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s %q must be a date YYYY-MM-DD", name, v))
		return def
	}
	return t
}

// LargeReadMemory is the memory one large-read slot is sized for: a
// page of 100 long quotes holds 47 MB of a pod's heap, and the rest
// of the pod needs room beside the slots (docs/architecture.md, "Memory").
const LargeReadMemory = 64 << 20

// DefaultLargeReads is one large response per CPU the process may use
// (GOMAXPROCS), plus one whose queries are in PostgreSQL meanwhile: building
// one is Go's CPU (scanning, encoding) after a wait for its rows, so more in
// flight add memory, not throughput. Go derives GOMAXPROCS from the
// container's CPU limit, and without one from the node's CPUs, so the
// memory limit in force (memoryLimit, the Go runtime's; 0 or
// math.MaxInt64: none) caps it too, at one slot per LargeReadMemory and
// never below two (docs/architecture.md, "Memory").
func DefaultLargeReads(memoryLimit int64) int {
	return largeReadsFor(runtime.GOMAXPROCS(0), memoryLimit)
}

func largeReadsFor(procs int, memoryLimit int64) int {
	n := procs + 1
	if memoryLimit > 0 && memoryLimit < math.MaxInt64 {
		n = min(n, max(2, int(memoryLimit/LargeReadMemory)))
	}
	return n
}

// FitMemory sizes a LargeReads that EVENTAPI_LARGE_READS left to its
// default for memoryLimit, the Go runtime's memory limit in force once
// serve has set it from the container's (DefaultLargeReads); a value set in
// the environment stays.
func (c *Config) FitMemory(memoryLimit int64) {
	if c.largeReadsDefaulted {
		c.LargeReads = DefaultLargeReads(memoryLimit)
	}
}
