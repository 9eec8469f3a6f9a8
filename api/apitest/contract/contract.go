// Package contract checks exchanges against the OpenAPI documents
// (api/openapi/openapi.yaml for /api/v2, api/openapi/v1.yaml for /api/v1):
// the operation is documented, the status is documented for it, the body
// matches the response's schema and its required headers are present. It
// depends on nothing of the server, so the tests of any package (the
// middlewares' own included) can route their responses through it.
package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/eventapi/eventapi/api/openapi"
)

// contractPrefix is the surface the v2 document describes; v1Prefix the
// surface of the v1 document (api/openapi/v1.yaml).
const (
	contractPrefix = "/api/v2"
	v1Prefix       = "/api/v1"
)

// contractSkips are paths under /api/v2 that are outside the document on
// purpose: the reference page's static assets and the routes that tests
// register with apitest.WithRoutes. Everything else the app serves under /api/v2
// must be documented.
var contractSkips = []string{
	openapi.AssetsPath + "/",
	contractPrefix + "/slow",       // api/server drain test
	contractPrefix + "/boom",       // api/server panic test
	openapi.V1DocumentPath,         // the v1 document itself (public, outside it)
	contractPrefix + "/edge-test/", // api/edgetest routes for cases no resource offers
}

// Contract is the OpenAPI document loaded for validation, built once per
// test binary.
type Contract struct {
	validator validator.Validator
	model     *v3.Document
	// codes are the values of components.schemas.ErrorCode.
	codes []string
	// mu serialises validations: the validator keeps caches of its own.
	mu sync.Mutex
	// prefix is the path prefix of the surface the document describes;
	// v1 marks the v1 document (its error envelope has no request_id).
	prefix string
	v1     bool
}

var loaded struct {
	once     sync.Once
	contract *Contract
	err      error
}

var loadedV1 struct {
	once     sync.Once
	contract *Contract
	err      error
}

// NoSuchRouteMessage is the message of the service's 404 for a path no
// route serves (rest.NoSuchRouteMessage; this package imports none of the
// service's, and api/rest's tests hold the two equal), by which an
// undocumented path's answer is told from a resource's 404.
const NoSuchRouteMessage = "no such route"

// LoadV1 returns the validator of the embedded v1 document, as
// served with the default Sunset date.
func LoadV1() (*Contract, error) {
	loadedV1.once.Do(func() {
		doc, err := openapi.V1JSON(time.Time{})
		if err != nil {
			loadedV1.err = err
			return
		}
		loadedV1.contract, loadedV1.err = NewV1(doc)
	})
	return loadedV1.contract, loadedV1.err
}

// NewV1 builds a validator for the v1 surface's OpenAPI document.
func NewV1(doc []byte) (*Contract, error) {
	m, err := buildModel(doc)
	if err != nil {
		return nil, err
	}
	v := validator.NewValidatorFromV3Model(m, config.WithFormatAssertions(), config.WithoutSecurityValidation())
	return &Contract{validator: v, model: m, prefix: v1Prefix, v1: true}, nil
}

func buildModel(doc []byte) (*v3.Document, error) {
	d, err := libopenapi.NewDocument(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi document: %w", err)
	}
	m, err := d.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("openapi model: %w", err)
	}
	return &m.Model, nil
}

// Load returns the validator of the embedded document.
func Load() (*Contract, error) {
	loaded.once.Do(func() { loaded.contract, loaded.err = New(openapi.MustJSON()) })
	return loaded.contract, loaded.err
}

// New builds a validator for an OpenAPI 3.1 document. Formats (uuid,
// date-time, date, email) are asserted; security is not, since the harness
// checks authentication through the responses themselves.
func New(doc []byte) (*Contract, error) {
	m, err := buildModel(doc)
	if err != nil {
		return nil, err
	}
	v := validator.NewValidatorFromV3Model(m, config.WithFormatAssertions(), config.WithoutSecurityValidation())
	c := &Contract{validator: v, model: m, prefix: contractPrefix}
	if m.Components != nil {
		if s, ok := m.Components.Schemas.Get("ErrorCode"); ok {
			for _, e := range s.Schema().Enum {
				c.codes = append(c.codes, e.Value)
			}
		}
	}
	if len(c.codes) == 0 {
		return nil, fmt.Errorf("openapi document: components.schemas.ErrorCode has no enum")
	}
	return c, nil
}

// Response is one answer as the check reads it.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Assert validates a response against the OpenAPI document: the
// operation is documented, the status is documented for it, the body matches
// that response's schema and its required headers are present. For a 2xx
// answer the request (parameters and body) must match the document too, so
// the document never forbids what the server accepts. It is called for every
// response the harness receives.
func Assert(t testing.TB, method, path string, reqBody []byte, res *Response) {
	t.Helper()
	load := Load
	if u, err := url.Parse(path); err == nil && underPrefix(u.Path, v1Prefix) {
		load = LoadV1
	}
	c, err := load()
	if err != nil {
		t.Fatalf("contract: %v", err)
	}
	if problems := c.Check(method, path, reqBody, res); len(problems) > 0 {
		t.Errorf("%s %s → %d breaks the OpenAPI contract (%s):\n  - %s\n  response body: %s",
			method, path, res.Status, c.source(), strings.Join(problems, "\n  - "), clip(res.Body, 600))
	}
}

// Check returns every way the exchange departs from the document; none
// means it conforms (or the path is outside the document).
func (c *Contract) Check(method, target string, reqBody []byte, res *Response) []string {
	u, err := url.Parse(target)
	if err != nil {
		return []string{"unparseable request target: " + err.Error()}
	}
	if !c.inContract(u.Path) {
		return nil
	}
	if !c.documented(method, u.Path) {
		return c.checkUndocumented(u.Path, res)
	}
	if strings.EqualFold(method, http.MethodHead) {
		return nil // HEAD mirrors the documented GET without a body to check
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var problems []string
	_, errs := c.validator.ValidateHttpResponse(newRequest(method, target, reqBody), res.httpResponse())
	problems = append(problems, describe("response", errs)...)
	problems = append(problems, c.checkReads(method, u, res)...)
	if res.Status >= 200 && res.Status < 300 {
		_, errs := c.validator.ValidateHttpRequestSync(newRequest(method, target, reqBody))
		problems = append(problems, describe("accepted request", errs)...)
	}
	return problems
}

// source names the file the document is authored in.
func (c *Contract) source() string {
	if c.v1 {
		return "api/openapi/v1.yaml"
	}
	return "api/openapi/openapi.yaml"
}

func underPrefix(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

func (c *Contract) inContract(path string) bool {
	if !underPrefix(path, c.prefix) {
		return false
	}
	for _, s := range contractSkips {
		if path == s || strings.HasPrefix(path, s) && strings.HasSuffix(s, "/") {
			return false
		}
	}
	return true
}

// documented reports whether the document has an operation for method on
// path (relative to the /api/v2 server).
func (c *Contract) documented(method, path string) bool {
	_, ok := c.Operation(method, path)
	return ok
}

// Operation returns the path template of the documented operation that
// serves method on path (a full /api/v2 path).
func (c *Contract) Operation(method, path string) (string, bool) {
	rel := strings.TrimPrefix(path, c.prefix)
	if rel == "" {
		rel = "/"
	}
	if c.model.Paths == nil {
		return "", false
	}
	for tmpl, item := range c.model.Paths.PathItems.FromOldest() {
		if !templateMatches(tmpl, rel) {
			continue
		}
		if slices.Contains(operationMethods(item), strings.ToUpper(method)) {
			return tmpl, true
		}
	}
	return "", false
}

// Operations lists every documented "METHOD /api/v2/path/{param}".
func (c *Contract) Operations() []string {
	var out []string
	for tmpl, item := range c.model.Paths.PathItems.FromOldest() {
		for _, m := range operationMethods(item) {
			out = append(out, m+" "+c.prefix+tmpl)
		}
	}
	return out
}

func operationMethods(item *v3.PathItem) []string {
	var ms []string
	for m, op := range map[string]*v3.Operation{
		http.MethodGet: item.Get, http.MethodPost: item.Post, http.MethodPatch: item.Patch,
		http.MethodPut: item.Put, http.MethodDelete: item.Delete,
	} {
		if op != nil {
			ms = append(ms, m)
		}
	}
	if item.Get != nil {
		ms = append(ms, http.MethodHead)
	}
	slices.Sort(ms)
	return ms
}

// templateMatches reports whether path is an instance of tmpl, exactly as
// the app routes it: a trailing slash is another path (docs/decisions.md,
// "Paths are exact").
func templateMatches(tmpl, path string) bool {
	ts := strings.Split(strings.TrimPrefix(tmpl, "/"), "/")
	ps := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(ts) != len(ps) {
		return false
	}
	for i, t := range ts {
		if strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
			if ps[i] == "" {
				return false
			}
			continue
		}
		if t != ps[i] {
			return false
		}
	}
	return true
}

// checkUndocumented accepts only the answers the app gives to a request it
// does not route: 401 (the key is checked before routing), 404 "no such
// route" and 405 from the fallback, each in the v2 error envelope. Any other
// answer means the app serves an operation the document lacks.
func (c *Contract) checkUndocumented(path string, res *Response) []string {
	if c.v1 {
		return checkUndocumentedV1(path, res)
	}
	var body struct {
		Error struct {
			Code      string          `json:"code"`
			Message   string          `json:"message"`
			Details   json.RawMessage `json:"details"`
			RequestID string          `json:"request_id"`
		} `json:"error"`
	}
	if err := decodeStrict(res.Body, &body); err != nil {
		return []string{fmt.Sprintf("undocumented operation on %s answered %d with a body that is not the error envelope (%v): document it in api/openapi/openapi.yaml", path, res.Status, err)}
	}
	e := body.Error
	fallback := (res.Status == http.StatusNotFound && e.Code == "not_found" && e.Message == NoSuchRouteMessage) ||
		(res.Status == http.StatusMethodNotAllowed && e.Code == "method_not_allowed") ||
		(res.Status == http.StatusUnauthorized && e.Code == "invalid_credentials")
	if !fallback {
		return []string{fmt.Sprintf("undocumented operation: the app answered %d %q on %s, which api/openapi/openapi.yaml does not describe", res.Status, e.Code, path)}
	}
	var problems []string
	if !slices.Contains(c.codes, e.Code) {
		problems = append(problems, fmt.Sprintf("error code %q is not in components.schemas.ErrorCode", e.Code))
	}
	if _, err := uuid.Parse(e.RequestID); err != nil {
		problems = append(problems, "error.request_id is not a uuid")
	}
	if e.Message == "" {
		problems = append(problems, "error.message is empty")
	}
	return problems
}

// decodeStrict decodes b into v, refusing fields v does not have.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func newRequest(method, target string, body []byte) *http.Request {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req := httptest.NewRequest(method, target, r)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

func (r *Response) httpResponse() *http.Response {
	return &http.Response{StatusCode: r.Status, Header: r.Header.Clone(), Body: io.NopCloser(bytes.NewReader(r.Body)),
		ContentLength: int64(len(r.Body))}
}

// describe renders validation errors with the failing field and rule.
func describe(what string, errs []*liberrors.ValidationError) []string {
	var out []string
	for _, e := range errs {
		line := what + ": " + e.Message
		if e.Reason != "" && e.Reason != e.Message {
			line += " (" + e.Reason + ")"
		}
		for _, s := range e.SchemaValidationErrors {
			where := s.FieldPath
			if where == "" {
				where = s.FieldName
			}
			line += fmt.Sprintf("\n      %s: %s [%s]", where, s.Reason, s.KeywordLocation)
		}
		out = append(out, line)
	}
	return out
}

func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

// checkUndocumentedV1 is checkUndocumented for the v1 surface: the fallback
// answers 401 UNAUTHORIZED, 404 NOT_FOUND or 405 METHOD_NOT_ALLOWED in the
// v1 error envelope, with the request id in X-Request-Id.
func checkUndocumentedV1(path string, res *Response) []string {
	var body struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := decodeStrict(res.Body, &body); err != nil {
		return []string{fmt.Sprintf("undocumented v1 operation on %s answered %d with a body that is not the v1 error envelope (%v): document it in api/openapi/v1.yaml", path, res.Status, err)}
	}
	e := body.Error
	fallback := (res.Status == http.StatusNotFound && e.Code == "NOT_FOUND") ||
		(res.Status == http.StatusMethodNotAllowed && e.Code == "METHOD_NOT_ALLOWED") ||
		(res.Status == http.StatusUnauthorized && e.Code == "UNAUTHORIZED")
	if !fallback {
		return []string{fmt.Sprintf("undocumented v1 operation: the app answered %d %q on %s, which api/openapi/v1.yaml does not describe", res.Status, e.Code, path)}
	}
	var problems []string
	if _, err := uuid.Parse(res.Header.Get("X-Request-Id")); err != nil {
		problems = append(problems, "X-Request-Id is not a uuid")
	}
	if e.Message == "" {
		problems = append(problems, "error.message is empty")
	}
	return problems
}
