package database

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"
)

// DefaultStatementTimeout is the statement_timeout a direct connection
// sends at connect when Options.StatementTimeout is zero and the URL names
// none: a backstop for a statement whose context ended and whose cancel
// request was lost.
const DefaultStatementTimeout = 15 * time.Second

// raisedNotice is the SQLSTATE of a notice a statement raises itself
// (RAISE NOTICE without an ERRCODE).
const raisedNotice = "00000"

func pgxConfig(url string, opt Options) (*pgx.ConnConfig, error) {
	pooler := opt.Pooler
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database URL: %w", err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 5 * time.Second
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["timezone"] = "UTC"
	cfg.RuntimeParams["application_name"] = "eventapi"
	keepDescriptions(cfg, strings.Contains(url, "description_cache_capacity"))
	cfg.BuildFrontend = readInLargerChunks
	if opt.OnNotice != nil {
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
			if n.Code == raisedNotice {
				opt.OnNotice(n.Message)
			}
		}
	}
	if pooler == PoolerTransaction {
		forTransactionPooler(cfg)
		return cfg, nil
	}
	// Not behind a pooler: Debian's PgBouncer 1.18 can exit on a cancel
	// request that meets a closing server connection (its issues 822 and
	// 847; docs/helm.md, "Redis Cluster and PgBouncer", names the releases
	// to run), so there a context that ends only closes the connection, as
	// pgx does by default.
	cfg.BuildContextWatcherHandler = cancelInServer
	if _, ok := cfg.RuntimeParams["statement_timeout"]; !ok {
		timeout := opt.StatementTimeout
		if timeout <= 0 {
			timeout = DefaultStatementTimeout
		}
		cfg.RuntimeParams["statement_timeout"] = fmt.Sprint(timeout.Milliseconds())
	}
	// bun writes argument values into the SQL text, so most statements are
	// seen once; those run unprepared (reuse.go), and only texts seen again
	// reach this cache. pgx's default of 512 prepared statements per
	// connection held about 100 MiB over a 20-connection pool (measured by
	// bench/catalogue); a small cache keeps the constant-text queries (first
	// list pages, auth) prepared.
	if !strings.Contains(url, "statement_cache_capacity") {
		cfg.StatementCacheCapacity = 32
	}
	return cfg, nil
}

// cancelDeadline is how long a statement whose context ended has to stop
// after its cancel request, before its connection is closed.
const cancelDeadline = time.Second

// cancelInServer makes a context that ends cancel the running statement in
// PostgreSQL (a cancel request, as psql's Ctrl-C sends; PgBouncer forwards
// it), and close the connection only if the statement has not stopped
// within cancelDeadline. pgx's default only closes the connection, which
// PostgreSQL notices when it next writes to it: a statement waiting on a
// lock went on, and a write whose request had been answered 503 (the
// request timeout) or abandoned at shutdown committed afterwards.
func cancelInServer(c *pgconn.PgConn) ctxwatch.Handler {
	return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: cancelDeadline}
}

// descriptionCacheCapacity is the size of each connection's description
// cache unless the URL names one.
const descriptionCacheCapacity = 16

// keepDescriptions sizes cfg's description cache. It serves pgx's
// cache_describe mode (PlanEachCall), which the service uses only for the
// few statements that must be planned on every call, so it is small: pgx's
// default would allocate 512 entries on every connection. A size given in
// the URL (inURL) is kept, but never below one entry, since cache_describe
// refuses to run without the cache.
func keepDescriptions(cfg *pgx.ConnConfig, inURL bool) {
	if !inURL {
		cfg.DescriptionCacheCapacity = descriptionCacheCapacity
	}
	cfg.DescriptionCacheCapacity = max(cfg.DescriptionCacheCapacity, 1)
}

// PlanEachCall is the leading query argument that makes pgx send a
// statement unnamed, with its parameters, on every call, so that
// PostgreSQL plans it for the values given and never caches a generic plan
// for it (a plan made for no organization in particular). The statement is
// described once per connection (pgx's cache_describe mode) and its results
// come in the binary format; each call is one round trip, on a direct
// connection and behind a transaction pooler alike. Both pgx's Query and
// database/sql's QueryContext on a pgx connection accept it. See
// docs/architecture.md, "Expansions".
const PlanEachCall = pgx.QueryExecModeCacheDescribe

// readBuffer is how much of PostgreSQL's replies one read from the socket
// may take.
const readBuffer = 32 << 10

// readInLargerChunks is pgx's frontend reading the connection through a
// buffer of readBuffer bytes. pgx's own reads take at most 8 KiB at a time,
// so a large result, such as a 1000-item manifest's items and equipment,
// cost a system call per 8 KiB; with the buffer each takes what
// PostgreSQL has sent by then, up to 32 KiB, and a small reply is read as
// before, in one call. The buffered bytes are the frontend's alone: the
// service never takes the connection over from pgx (SyncConn, Hijack),
// whose check for unread bytes would not see them (docs/architecture.md,
// "Reading replies").
func readInLargerChunks(r io.Reader, w io.Writer) *pgproto3.Frontend {
	return pgproto3.NewFrontend(bufio.NewReaderSize(r, readBuffer), w)
}
