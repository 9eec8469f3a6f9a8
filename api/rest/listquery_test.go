package rest_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// queryPage is what the test handler of TestQuery answers.
type queryPage struct {
	Limit  int      `json:"limit"`
	After  bool     `json:"after"`
	Scope  string   `json:"scope"`
	Expand []string `json:"expand"`
}

// queryApp serves GET / reading every kind of parameter with one
// rest.Query, in this order: event_id, status, archived, search, code (the
// handler's own check), fail (a check that fails with a 409), expand, then
// the page, its cursors bound to "list:<status>" or formerly
// "old:<status>". The key holds events:read only.
func queryApp(cs *storage.Cursors) *fiber.App {
	app := fiber.New(fiber.Config{ErrorHandler: rest.ErrorHandler(slog.New(slog.DiscardHandler))})
	app.Use(func(c *fiber.Ctx) error {
		rest.EnsureRequestID(c)
		c.SetUserContext(tenancy.WithPrincipal(c.UserContext(),
			&tenancy.Principal{Scopes: tenancy.NewScopeSet(tenancy.EventsRead)}))
		return c.Next()
	})
	app.Get("/", func(c *fiber.Ctx) error {
		q := rest.NewQuery(c)
		q.UUID("event_id")
		status := q.Enum("status", "open", "closed")
		q.Bool("archived", false)
		q.String("search", 5)
		if v, given := q.Raw("code"); given && v != "ok" {
			q.Issue("code", "must be ok")
		}
		if _, given := q.Raw("fail"); given {
			q.Check(errs.New(errs.DuplicateRecord, "taken"))
		}
		want := q.Expansions(rest.Expand("event", tenancy.EventsRead), rest.Expand("client", tenancy.ClientsRead))
		p := q.PageFormerly(cs, "list:"+status, "old:"+status)
		if err := q.Err(); err != nil {
			return err
		}
		out := queryPage{Limit: p.Limit, After: p.After != nil, Scope: p.Scope, Expand: []string{}}
		for name := range want {
			out.Expand = append(out.Expand, name)
		}
		slices.Sort(out.Expand)
		return c.JSON(out)
	})
	return app
}

// TestQuery: a rest.Query names every bad parameter in one 422, in the
// order the handler reads them; the cursor is judged only when no filter
// before it is bad; an expansion the key may not read is 403 only when no
// parameter is bad, as is any other error of a check.
func TestQuery(t *testing.T) {
	cs := storage.NewCursors([]byte("query test key"))
	at := storage.Cursor{CreatedAt: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), ID: uuid.New()}
	open := url.QueryEscape(cs.Encode("list:open", at))
	former := url.QueryEscape(cs.Encode("old:open", at))
	app := queryApp(cs)
	cases := []struct {
		name   string
		query  string
		status int
		code   string
		fields []string   // of a 422, in order
		page   *queryPage // of a 200
	}{
		{"no parameter", "", 200, "", nil, &queryPage{Limit: rest.DefaultLimit, Scope: "list:", Expand: []string{}}},
		{"every parameter good",
			"event_id=" + uuid.NewString() + "&status=open&archived=true&search=abc&code=ok&expand=event&limit=5&cursor=" + open,
			200, "", nil, &queryPage{Limit: 5, After: true, Scope: "list:open", Expand: []string{"event"}}},
		{"every reader's issue, in the order read",
			"limit=0&expand=nope&code=no&search=toolong&archived=maybe&status=nope&event_id=x",
			422, "validation_error", []string{"event_id", "status", "archived", "search", "code", "expand", "limit"}, nil},
		{"a bad filter leaves a good cursor unjudged", "status=opn&cursor=" + open, 422, "validation_error", []string{"status"}, nil},
		{"a bad filter and a bad limit and cursor", "status=opn&cursor=garbage&limit=500", 422, "validation_error", []string{"status", "limit"}, nil},
		{"a good filter and a bad cursor", "status=open&cursor=garbage", 422, "validation_error", []string{"cursor"}, nil},
		{"a cursor of another filter value", "status=closed&cursor=" + open, 422, "validation_error", []string{"cursor"}, nil},
		{"an empty cursor", "status=open&cursor=", 422, "validation_error", []string{"cursor"}, nil},
		{"a cursor of the former scope", "status=open&cursor=" + former, 200, "", nil,
			&queryPage{Limit: rest.DefaultLimit, After: true, Scope: "list:open", Expand: []string{}}},
		{"a bad expand leaves the cursor judged", "expand=nope&cursor=garbage", 422, "validation_error", []string{"expand", "cursor"}, nil},
		{"limit and cursor", "cursor=garbage&limit=x", 422, "validation_error", []string{"limit", "cursor"}, nil},
		{"an expansion the key may not read", "expand=client", 403, "insufficient_scope", nil, nil},
		{"a bad filter beats an unreadable expansion", "status=nope&expand=client", 422, "validation_error", []string{"status"}, nil},
		{"a bad limit beats an unreadable expansion", "expand=client&limit=0", 422, "validation_error", []string{"limit"}, nil},
		{"a bad cursor beats an unreadable expansion", "status=open&expand=client&cursor=garbage", 422, "validation_error", []string{"cursor"}, nil},
		{"every name before any scope", "expand=client,nope", 422, "validation_error", []string{"expand"}, nil},
		{"a failed check alone", "fail", 409, "duplicate_record", nil, nil},
		{"issues beat a failed check", "fail&archived=maybe", 422, "validation_error", []string{"archived"}, nil},
		{"the first failure is answered", "fail&expand=client", 409, "duplicate_record", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := app.Test(httptest.NewRequest(http.MethodGet, "/?"+tc.query, nil), -1)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d %s, want %d", resp.StatusCode, raw, tc.status)
			}
			if tc.page != nil {
				var got queryPage
				if err := json.Unmarshal(raw, &got); err != nil || !sameQueryPage(got, *tc.page) {
					t.Fatalf("page %s, want %+v", raw, *tc.page)
				}
				return
			}
			var body struct {
				Error struct {
					Code    string `json:"code"`
					Details struct {
						Fields []errs.FieldIssue `json:"fields"`
					} `json:"details"`
				} `json:"error"`
			}
			if err := json.Unmarshal(raw, &body); err != nil {
				t.Fatalf("%v: %s", err, raw)
			}
			var fields []string
			for _, f := range body.Error.Details.Fields {
				fields = append(fields, f.Field)
			}
			if body.Error.Code != tc.code || !slices.Equal(fields, tc.fields) {
				t.Fatalf("%s, want %s naming %v", raw, tc.code, tc.fields)
			}
		})
	}
}

func sameQueryPage(a, b queryPage) bool {
	return a.Limit == b.Limit && a.After == b.After && a.Scope == b.Scope && slices.Equal(a.Expand, b.Expand)
}

// TestQueryIssuesAreThoseOfTheSingleReaders: each reader of a Query states
// the issue of its single-parameter function, word for word.
func TestQueryIssuesAreThoseOfTheSingleReaders(t *testing.T) {
	app := queryApp(storage.NewCursors([]byte("query test key")))
	resp, err := app.Test(httptest.NewRequest(http.MethodGet, "/?event_id=x&status=nope&archived=maybe&search=toolong&limit=0", nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	for _, issue := range []string{"must be a uuid", "must be one of: open, closed", "must be true or false",
		"must be at most 5 characters", "must be an integer from 1 to 100"} {
		if !strings.Contains(string(raw), issue) {
			t.Errorf("%s does not say %q", raw, issue)
		}
	}
}
