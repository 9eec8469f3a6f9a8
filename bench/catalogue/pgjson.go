package catalogue

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
)

// The JSON of a client built by PostgreSQL, in the app's field order.
// Timestamps are rendered as Go's RFC 3339 (UTC, "Z", trailing zeros of the
// fraction dropped, as PostgreSQL's own JSON does), so the answers are
// JSON-equivalent to the app's: the same values, not the same bytes
// (PostgreSQL writes `"id" : "…"`, with spaces).
const (
	pgClientJSON = `json_build_object('id', c.id, 'name', c.name, 'email', c.email, 'phone', c.phone, ` +
		`'address', c.address, 'city', c.city, 'state', c.state, 'zip', c.zip, 'notes', c.notes, 'demo', c.demo, ` +
		`'created_at', (to_json(c.created_at AT TIME ZONE 'UTC') #>> '{}') || 'Z', ` +
		`'updated_at', (to_json(c.updated_at AT TIME ZONE 'UTC') #>> '{}') || 'Z')`
	pgDetailSQL = `SELECT ` + pgClientJSON + `::text FROM clients AS c WHERE c.organization_id = $1 AND c.id = $2`
	// pgListSQL reads limit+1 rows like scoped.List and returns the first
	// limit as one JSON array, whether more follow, and the last row's
	// cursor key.
	pgListSQL = `SELECT coalesce(json_agg(p.j ORDER BY p.rn) FILTER (WHERE p.rn <= $2), '[]'::json)::text, ` +
		`count(*) > $2, (array_agg(p.created_at) FILTER (WHERE p.rn = $2))[1], (array_agg(p.id) FILTER (WHERE p.rn = $2))[1] ` +
		`FROM (SELECT ` + pgClientJSON + ` AS j, c.created_at, c.id, ` +
		`row_number() OVER (ORDER BY c.created_at, c.id) AS rn FROM clients AS c ` +
		`WHERE c.organization_id = $1 %s ORDER BY c.created_at, c.id LIMIT $2 + 1) AS p`
	pgSearch = `AND lower(c.name || ' ' || coalesce(c.email, '')) LIKE $3 ` +
		`AND (strpos(lower(c.name), $4) > 0 OR strpos(lower(coalesce(c.email, '')), $4) > 0)`
)

// PGJSON is the second comparison server, built the way PostgREST and pREST
// serve: PostgreSQL writes the JSON (json_build_object, json_agg) and the
// server only wraps it in the envelope and adds the cursor. Same routes,
// same HeaderOrg, same statements' WHERE and ORDER BY as Baseline.
type PGJSON struct {
	Pool    *pgxpool.Pool
	Cursors *storage.Cursors
}

// Handler returns the server's routes.
func (b *PGJSON) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v2/clients/{id}", b.detail)
	mux.HandleFunc("GET /api/v2/clients", b.list)
	return mux
}

func (b *PGJSON) detail(w http.ResponseWriter, r *http.Request) {
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
	var body []byte
	if err := b.Pool.QueryRow(r.Context(), pgDetailSQL, org, id).Scan(&body); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			http.NotFound(w, r)
			return
		}
		http.Error(w, "query failed", http.StatusInternalServerError)
		return
	}
	writeEnvelope(w, body, nil)
}

func (b *PGJSON) list(w http.ResponseWriter, r *http.Request) {
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
	var (
		data    []byte
		hasMore bool
		lastAt  *time.Time
		lastID  *uuid.UUID
		row     pgx.Row
	)
	if s := strings.ToLower(strings.TrimSpace(search)); s != "" {
		row = b.Pool.QueryRow(r.Context(), strings.Replace(pgListSQL, "%s", pgSearch, 1), org, limit,
			"%"+likeEscaper.Replace(s)+"%", s)
	} else {
		row = b.Pool.QueryRow(r.Context(), strings.Replace(pgListSQL, "%s", "", 1), org, limit)
	}
	if err := row.Scan(&data, &hasMore, &lastAt, &lastID); err != nil {
		http.Error(w, "query failed", http.StatusInternalServerError)
		return
	}
	var p rest.Pagination
	if hasMore && lastAt != nil && lastID != nil {
		next := b.Cursors.Encode("clients:"+org.String()+":"+strings.ToLower(strings.TrimSpace(search)), storage.Cursor{CreatedAt: lastAt.UTC(), ID: *lastID})
		p = rest.Pagination{NextCursor: &next, HasMore: true}
	}
	writeEnvelope(w, data, &p)
}

// writeEnvelope writes {"data":<data>[,"pagination":…]} with data as
// PostgreSQL wrote it: no re-encoding in Go, as in PostgREST.
func writeEnvelope(w http.ResponseWriter, data []byte, p *rest.Pagination) {
	out := make([]byte, 0, len(data)+160)
	out = append(out, `{"data":`...)
	out = append(out, data...)
	if p != nil {
		pj, err := json.Marshal(p)
		if err != nil {
			http.Error(w, "encode failed", http.StatusInternalServerError)
			return
		}
		out = append(out, `,"pagination":`...)
		out = append(out, pj...)
	}
	out = append(out, '}')
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}
