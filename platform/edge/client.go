package edge

import (
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/eventapi/eventapi/platform/config"
)

// Defaults of the Redis client settings (config.Redis, EVENTAPI_REDIS_*).
// docs/edge.md, "Redis client settings", explains each choice.
const (
	// DefaultLimiterTimeout bounds one rate-limit decision; the limiter
	// fails open after it. platform/config holds the value, as below.
	DefaultLimiterTimeout = config.DefaultLimiterTimeout
	// DefaultIdempotencyTimeout bounds one attempt of an idempotency-record
	// operation; a timed-out attempt is retried once. platform/config holds
	// the value, to check the socket timeouts against it.
	DefaultIdempotencyTimeout = config.DefaultIdempotencyTimeout
	// DefaultPoolSize is the connection pool size per Redis node.
	DefaultPoolSize = 50
	// DefaultDialTimeout bounds establishing one connection.
	DefaultDialTimeout = 500 * time.Millisecond
	// DefaultSocketTimeout is the read and write ceiling of one command
	// when EVENTAPI_REDIS_READ_TIMEOUT and EVENTAPI_REDIS_WRITE_TIMEOUT are
	// unset, unless a per-purpose bound is longer (socketTimeouts): the
	// per-purpose bounds come from the context, and go-redis ends a read or
	// write at the earlier of its context deadline and the socket timeout.
	DefaultSocketTimeout = time.Second
	// clusterReloadInterval is how often a cluster client refreshes its slot
	// map without being told to (go-redis's default is 60 s).
	clusterReloadInterval = 10 * time.Second
	// connBufferSize sizes each connection's read and write buffers, in the
	// regular pool and a single node's pipeline pool. go-redis's defaults
	// (32 KiB, and 128 KiB for the pipeline pool) are for large values and
	// long pipelines; here a command and its reply are a few hundred bytes
	// (a limiter script call is about 200), a batch larger than the buffer
	// is written in more than one system call, and a larger reply, such as
	// a stored response, is read past the buffer into a slice of its own
	// size (docs/edge.md, "Redis client settings").
	connBufferSize = 8 << 10
	// clientName names every connection (CLIENT SETNAME, in the HELLO of
	// the handshake) unless the URL's client_name gives another.
	clientName = "eventapi"
)

// withDefaults fills the zero settings with the defaults, except the read
// and write timeouts: newClient derives those from the per-purpose bounds
// in force, which NewRedis may still replace (RedisOptions.Timeout).
func withDefaults(s config.Redis) config.Redis {
	if s.LimiterTimeout <= 0 {
		s.LimiterTimeout = DefaultLimiterTimeout
	}
	if s.IdempotencyTimeout <= 0 {
		s.IdempotencyTimeout = DefaultIdempotencyTimeout
	}
	if s.PoolSize <= 0 {
		s.PoolSize = DefaultPoolSize
	}
	if s.DialTimeout <= 0 {
		s.DialTimeout = DefaultDialTimeout
	}
	return s
}

// socketTimeouts fills unset read and write timeouts with
// DefaultSocketTimeout, or the longest per-purpose bound when that is
// longer. With ContextTimeoutEnabled go-redis ends a socket read or write at
// the earlier of the call's context deadline and the socket timeout, so a
// shorter socket timeout would silently cut the per-purpose bound
// (EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT=4s gave 1 s attempts). Timeouts set
// explicitly are kept: platform/config refuses them below a per-purpose
// bound (docs/edge.md, "Redis client settings").
func socketTimeouts(s config.Redis) config.Redis {
	floor := max(DefaultSocketTimeout, s.LimiterTimeout, s.IdempotencyTimeout)
	if s.ReadTimeout <= 0 {
		s.ReadTimeout = floor
	}
	if s.WriteTimeout <= 0 {
		s.WriteTimeout = floor
	}
	return s
}

// newClient builds a single-node client for redis:// and rediss:// URLs and
// a cluster client for redis+cluster://host:port,host:port,… (or any of
// them with s.Cluster): the hosts are seed nodes, the client discovers the
// rest of the cluster and follows failovers.
func newClient(rawURL string, s config.Redis) (redis.UniversalClient, error) {
	// The pool wait is the read timeout: at least every per-purpose bound
	// too, and ended earlier by the call's context deadline anyway.
	s = socketTimeouts(s)
	target, err := config.ParseRedisURL(rawURL, s.Cluster)
	if err != nil {
		return nil, fmt.Errorf("parse Redis URL: %w", err)
	}
	if o := target.Single; o != nil {
		o.PoolSize, o.DialTimeout, o.ReadTimeout, o.WriteTimeout = s.PoolSize, s.DialTimeout, s.ReadTimeout, s.WriteTimeout
		o.PoolTimeout = s.ReadTimeout
		o.ReadBufferSize, o.WriteBufferSize = connBufferSize, connBufferSize
		o.PipelineReadBufferSize, o.PipelineWriteBufferSize = connBufferSize, connBufferSize
		o.MaxRetries = -1 // 0 would mean the default (3 retries); retries are ours, per purpose
		// One dial attempt per operation: with the default (5 attempts,
		// 100 ms apart) every request during an outage would wait out its
		// bound instead of failing at once on "connection refused".
		o.DialerRetries = 1
		o.ContextTimeoutEnabled = true
		o.ClientName, o.DisableIdentity, o.MaintNotificationsConfig = handshake(o.ClientName)
		return redis.NewClient(o), nil
	}
	o := target.Cluster
	o.PoolSize, o.DialTimeout, o.ReadTimeout, o.WriteTimeout = s.PoolSize, s.DialTimeout, s.ReadTimeout, s.WriteTimeout
	o.PoolTimeout = s.ReadTimeout
	// A cluster client pipelines through its regular pools unless pipeline
	// buffer sizes are set, so those stay unset.
	o.ReadBufferSize, o.WriteBufferSize = connBufferSize, connBufferSize
	o.MaxRetries = -1
	o.DialerRetries = 1
	o.ContextTimeoutEnabled = true
	o.ClientName, o.DisableIdentity, o.MaintNotificationsConfig = handshake(o.ClientName)
	// The slot map is also reloaded after every failed operation (Redis.failed);
	// the periodic reload only bounds staleness without errors.
	o.ClusterStateReloadInterval = clusterReloadInterval
	// Redirects (MOVED/ASK, and another node after a network error) stay at
	// go-redis's default of 3: they are how the client follows a failover.
	// Every one of them happens within the operation's context deadline.
	return redis.NewClusterClient(o), nil
}

// handshake sets what a new connection says to Redis before its first
// command: its name (CLIENT LIST shows name=eventapi unless the URL's
// client_name gives another), and neither CLIENT SETINFO nor CLIENT
// MAINT_NOTIFICATIONS. go-redis sends both by default and goes on when
// they are refused, but Redis before 7.2 refuses SETINFO and Redis outside
// Redis Enterprise MAINT_NOTIFICATIONS, so every new connection added
// three error replies to the server's errorstats, where an SRE's alert on
// Redis errors counts them (docs/edge.md, "Redis client settings").
func handshake(name string) (string, bool, *maintnotifications.Config) {
	if name == "" {
		name = clientName
	}
	return name, true, &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
}
