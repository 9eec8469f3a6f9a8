package edgetest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/apitest"
)

// reply is one HTTP exchange as the client saw it. Responses that must be 5xx
// (503 while Redis is down) go through these helpers rather than apitest,
// whose checks refuse every 5xx; like apitest.Send, every one of them is
// validated against the OpenAPI document (apitest.CheckContract).
type reply struct {
	Status         int
	Header         http.Header
	Body           []byte
	Sent, Received time.Time
}

func (r *reply) JSON() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	return m
}

func (r *reply) Code() string {
	e, _ := r.JSON()["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// Remaining parses X-RateLimit-Remaining (-1 when absent or not a number).
func (r *reply) Remaining() int {
	n, err := strconv.Atoi(r.Header.Get("X-RateLimit-Remaining"))
	if err != nil {
		return -1
	}
	return n
}

func newRequest(method, target, key, body string, headers ...string) *http.Request {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return req
}

// viaApp sends a request through app.Test (in-process).
func viaApp(t testing.TB, app *fiber.App, method, path, key, body string, headers ...string) *reply {
	t.Helper()
	sent := time.Now()
	resp, err := app.Test(newRequest(method, path, key, body, headers...), 30_000)
	if err != nil {
		t.Errorf("%s %s: %v", method, path, err)
		return &reply{}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := &reply{Status: resp.StatusCode, Header: resp.Header, Body: b, Sent: sent, Received: time.Now()}
	checkContract(t, method, path, body, r)
	return r
}

// viaHTTP sends a request over the network to base (http://host:port).
func viaHTTP(t testing.TB, client *http.Client, base, method, path, key, body string, headers ...string) *reply {
	t.Helper()
	req := newRequest(method, base+path, key, body, headers...)
	req.RequestURI = ""
	sent := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		t.Errorf("%s %s%s: %v", method, base, path, err)
		return &reply{}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := &reply{Status: resp.StatusCode, Header: resp.Header, Body: b, Sent: sent, Received: time.Now()}
	checkContract(t, method, path, body, r)
	return r
}

// checkContract validates one exchange against the OpenAPI document, as
// apitest.Send does for its own requests.
func checkContract(t testing.TB, method, path, body string, r *reply) {
	t.Helper()
	var raw []byte
	if body != "" {
		raw = []byte(body)
	}
	apitest.CheckContract(t, method, path, raw, &apitest.Response{Status: r.Status, Header: r.Header, Body: r.Body})
}
