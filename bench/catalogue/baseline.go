package catalogue

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
)

// HeaderOrg names the organization for the baseline, which has no auth.
const HeaderOrg = "X-Bench-Org"

// The same statements bun generates for clients.Get and clients.List, with
// pgx placeholders instead of inlined literals.
const (
	clientColumns = `"c"."id", "c"."name", "c"."email", "c"."phone", "c"."address", "c"."city", "c"."state", ` +
		`"c"."zip", "c"."notes", "c"."demo", "c"."created_at", "c"."updated_at"`
	detailSQL = `SELECT ` + clientColumns + ` FROM "clients" AS "c" ` +
		`WHERE ("c"."organization_id" = $1) AND ("c"."id" = $2) LIMIT 1`
	listSQL = `SELECT ` + clientColumns + ` FROM "clients" AS "c" WHERE ("c"."organization_id" = $1) ` +
		`ORDER BY "c"."created_at" ASC, "c"."id" ASC LIMIT $2`
	searchSQL = `SELECT ` + clientColumns + ` FROM "clients" AS "c" WHERE ("c"."organization_id" = $1) ` +
		`AND (lower("c"."name" || ' ' || coalesce("c"."email", '')) LIKE $3 ` +
		`AND (strpos(lower("c"."name"), $4) > 0 OR strpos(lower(coalesce("c"."email", '')), $4) > 0)) ` +
		`ORDER BY "c"."created_at" ASC, "c"."id" ASC LIMIT $2`
)

// client is the JSON shape of api/clients.Client.
type client struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Email     *string   `json:"email"`
	Phone     *string   `json:"phone"`
	Address   *string   `json:"address"`
	City      *string   `json:"city"`
	State     *string   `json:"state"`
	Zip       *string   `json:"zip"`
	Notes     *string   `json:"notes"`
	Demo      bool      `json:"demo"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func scanClient(row pgx.Row, c *client) error {
	err := row.Scan(&c.ID, &c.Name, &c.Email, &c.Phone, &c.Address, &c.City, &c.State, &c.Zip, &c.Notes, &c.Demo,
		&c.CreatedAt, &c.UpdatedAt)
	c.CreatedAt, c.UpdatedAt = c.CreatedAt.UTC(), c.UpdatedAt.UTC()
	return err
}

// Baseline is the bare comparison server: GET /api/v2/clients/{id} and GET
// /api/v2/clients?limit=&search= (first page), for the organization named in
// HeaderOrg. It answers the same bodies as the app, cursor included, and
// nothing else: no auth, rate limit, request id, tracing or access log.
type Baseline struct {
	Pool    *pgxpool.Pool
	Cursors *storage.Cursors
}

// Handler returns the baseline's routes.
func (b *Baseline) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v2/clients/{id}", b.detail)
	mux.HandleFunc("GET /api/v2/clients", b.list)
	return mux
}

func (b *Baseline) detail(w http.ResponseWriter, r *http.Request) {
	org, err := uuid.Parse(r.Header.Get(HeaderOrg))
	if err != nil {
		http.Error(w, "bad "+HeaderOrg, http.StatusBadRequest)
		return
	}
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	var c client
	if err := scanClient(b.Pool.QueryRow(r.Context(), detailSQL, org, id), &c); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			http.NotFound(w, r)
			return
		}
		http.Error(w, "query failed", http.StatusInternalServerError)
		return
	}
	writeJSON(w, rest.Data[client]{Data: c})
}

func (b *Baseline) list(w http.ResponseWriter, r *http.Request) {
	org, err := uuid.Parse(r.Header.Get(HeaderOrg))
	if err != nil {
		http.Error(w, "bad "+HeaderOrg, http.StatusBadRequest)
		return
	}
	q := r.URL.Query()
	limit := rest.DefaultLimit
	if s := q.Get("limit"); s != "" {
		if limit, err = parseLimit(s); err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
	}
	search := q.Get("search")
	items, err := b.query(r.Context(), org, limit, search)
	if err != nil {
		http.Error(w, "query failed", http.StatusInternalServerError)
		return
	}
	out := rest.List[client]{Data: items}
	if len(items) > limit {
		last := items[limit-1]
		next := b.Cursors.Encode("clients:"+org.String()+":"+strings.ToLower(strings.TrimSpace(search)), storage.Cursor{CreatedAt: last.CreatedAt, ID: last.ID})
		out.Data, out.Pagination = items[:limit], rest.Pagination{NextCursor: &next, HasMore: true}
	}
	writeJSON(w, out)
}

// query reads limit+1 rows, like storage.List, to know whether more follow.
func (b *Baseline) query(ctx context.Context, org uuid.UUID, limit int, search string) ([]client, error) {
	var rows pgx.Rows
	var err error
	if s := strings.ToLower(strings.TrimSpace(search)); s != "" {
		pattern := "%" + likeEscaper.Replace(s) + "%"
		rows, err = b.Pool.Query(ctx, searchSQL, org, limit+1, pattern, s)
	} else {
		rows, err = b.Pool.Query(ctx, listSQL, org, limit+1)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	items := make([]client, 0, limit+1)
	for rows.Next() {
		var c client
		if err := scanClient(rows, &c); err != nil {
			return nil, err
		}
		items = append(items, c)
	}
	return items, rows.Err()
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

func parseLimit(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > rest.MaxLimit {
		return 0, errors.New("limit must be an integer from 1 to 100")
	}
	return n, nil
}

func writeJSON(w http.ResponseWriter, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encode failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// OpenPool opens the baseline's pool with the session settings the app's
// pool uses (UTC, statement timeout) and maxConns connections, like the
// app's EVENTAPI_DB_MAX_CONNS.
func OpenPool(ctx context.Context, url string, maxConns int32) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = maxConns
	rp := cfg.ConnConfig.RuntimeParams
	rp["timezone"] = "UTC"
	rp["statement_timeout"] = "15000"
	rp["application_name"] = "eventapi-bench-baseline"
	return pgxpool.NewWithConfig(ctx, cfg)
}

// CursorKey reads the app's cursor HMAC key, so the baseline's cursors are
// byte-identical to the app's.
func CursorKey(ctx context.Context, pool *pgxpool.Pool) ([]byte, error) {
	var key []byte
	err := pool.QueryRow(ctx, `SELECT value FROM service_secrets WHERE name = 'cursor_hmac'`).Scan(&key)
	return key, err
}
