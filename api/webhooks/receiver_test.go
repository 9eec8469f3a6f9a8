package webhooks_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// message is one verified request a receiver got.
type message struct {
	ID     string
	Type   string
	Data   map[string]any
	Body   []byte
	Header http.Header
}

// receiver is a real HTTP server on a fixed loopback port that verifies
// every request with the Standard Webhooks library and records it. It can
// be closed (connections refused) and opened again on the same port.
type receiver struct {
	t      testing.TB
	addr   string
	mu     sync.Mutex
	wh     *standardwebhooks.Webhook
	secret string
	got    []message
	bad    []string
	srv    *http.Server
	// hold, when set, is called before answering (tests block in it).
	hold func(r *http.Request)
	// refuse, when set, is asked of each verified body: true answers 422,
	// as a receiver does to a message it cannot take.
	refuse func(body []byte) bool
	// reply, when set, answers every verified request with its status
	// and Retry-After header ("" for none), recorded as refused.
	reply func() (status int, retryAfter string)
}

func newReceiver(t testing.TB) *receiver {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &receiver{t: t, addr: ln.Addr().String()}
	r.serve(ln)
	t.Cleanup(r.Close)
	return r
}

// URL is where the receiver listens.
func (r *receiver) URL() string { return "http://" + r.addr + "/hook" }

// SetSecret gives the receiver the endpoint's signing secret.
func (r *receiver) SetSecret(secret string) {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		r.t.Fatal(err)
	}
	r.mu.Lock()
	r.wh, r.secret = wh, secret
	r.mu.Unlock()
}

func (r *receiver) serve(ln net.Listener) {
	r.srv = &http.Server{Handler: http.HandlerFunc(r.handle), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
}

func (r *receiver) handle(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	if r.hold != nil {
		r.hold(req)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.wh == nil {
		r.bad = append(r.bad, "no secret set")
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	if err := r.wh.Verify(body, req.Header); err != nil {
		r.bad = append(r.bad, "signature: "+err.Error())
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var m struct {
		Type      string         `json:"type"`
		Timestamp time.Time      `json:"timestamp"`
		Data      map[string]any `json:"data"`
	}
	if err := json.Unmarshal(body, &m); err != nil || m.Type == "" || m.Timestamp.IsZero() || m.Data == nil {
		r.bad = append(r.bad, "body: "+string(body))
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if r.reply != nil {
		status, after := r.reply()
		r.bad = append(r.bad, "answered "+http.StatusText(status))
		if after != "" {
			w.Header().Set("Retry-After", after)
		}
		w.WriteHeader(status)
		return
	}
	if r.refuse != nil && r.refuse(body) {
		r.bad = append(r.bad, "refused: "+string(body))
		w.WriteHeader(http.StatusUnprocessableEntity)
		return
	}
	r.got = append(r.got, message{ID: req.Header.Get("webhook-id"), Type: m.Type, Data: m.Data, Body: body, Header: req.Header.Clone()})
	w.WriteHeader(http.StatusNoContent)
}

// Close stops the receiver: its port refuses connections.
func (r *receiver) Close() { _ = r.srv.Close() }

// Open serves on the same port again.
func (r *receiver) Open() {
	var ln net.Listener
	var err error
	waitFor(r.t, "the receiver's port to be free again", func() bool {
		ln, err = net.Listen("tcp", r.addr)
		return err == nil
	})
	r.serve(ln)
}

// Messages returns what the receiver verified so far.
func (r *receiver) Messages() []message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]message(nil), r.got...)
}

// Bad returns the requests that failed verification.
func (r *receiver) Bad() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bad...)
}

// waitFor polls cond until it holds, failing the test after a generous
// deadline (a guard against hanging, not a measured bound).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
