package database

import (
	"context"
	"database/sql/driver"
	"hash/maphash"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// bun writes argument values into the SQL text, so most texts are seen once:
// a detail read embeds its id, a write its values. pgx's default mode
// prepares every text it queries (a Parse and Describe round trip, then the
// execution), which for a text never sent again is one round trip and one
// plan thrown away. prepareOnReuse sends a text's first sighting in pgx's
// exec mode instead (Parse, Bind and Execute of the unnamed statement in one
// round trip, nothing kept) and lets a text seen again within the pool go
// through the statement cache, so the constant texts (a first list page,
// authentication) stay prepared. docs/architecture.md, "Statements".

// seenCapacity bounds the texts remembered; when it is reached the memory
// starts over, so a text then waits one more sighting to be prepared.
const seenCapacity = 4096

// seenTexts remembers which statement texts the pool has sent, by hash.
type seenTexts struct {
	seed maphash.Seed
	mu   sync.Mutex
	seen map[uint64]struct{}
}

func newSeenTexts() *seenTexts {
	return &seenTexts{seed: maphash.MakeSeed(), seen: map[uint64]struct{}{}} // grows with use: a probe pool sends a handful of texts
}

// again reports whether text was sent before, and remembers it.
func (s *seenTexts) again(text string) bool {
	h := maphash.String(s.seed, text)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.seen[h]; ok {
		return true
	}
	if len(s.seen) >= seenCapacity {
		clear(s.seen)
	}
	s.seen[h] = struct{}{}
	return false
}

// reuseConnector makes the pool's connections, each sharing one memory of
// the texts sent.
type reuseConnector struct {
	driver.Connector
	seen *seenTexts
}

func prepareOnReuse(c driver.Connector) driver.Connector {
	return reuseConnector{Connector: c, seen: newSeenTexts()}
}

func (c reuseConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := dc.(*stdlib.Conn)
	if !ok {
		return dc, nil
	}
	return &reuseConn{stdlibConn: sc, seen: c.seen}, nil
}

// stdlibConn names the embedded pgx connection so that its Conn method is
// promoted (a field named Conn would hide it).
type stdlibConn = stdlib.Conn

// reuseConn is a pgx connection whose queries of a new text run in exec
// mode. Every other method is the pgx connection's own.
type reuseConn struct {
	*stdlibConn
	seen *seenTexts
}

// execOnce is the argument that tells pgx to run a query in exec mode.
var execOnce = driver.NamedValue{Value: pgx.QueryExecModeExec}

func (c *reuseConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if !c.seen.again(query) {
		args = append([]driver.NamedValue{execOnce}, args...)
	}
	return c.stdlibConn.QueryContext(ctx, query, args)
}

// PgxConn is the pgx connection under a database/sql driver connection
// (for sql.Conn.Raw), or nil when the driver is not pgx.
func PgxConn(driverConn any) *pgx.Conn {
	if c, ok := driverConn.(interface{ Conn() *pgx.Conn }); ok {
		return c.Conn()
	}
	return nil
}
