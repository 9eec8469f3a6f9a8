package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/client"
	"github.com/eventapi/eventapi/platform/config"
)

// TestWebhookReceiver: a receiver built on NewWebhookReceiver's Handler gets
// a client's creation from a real server, verified, and RecordOf decodes it
// into the record GET answers and the feed's change holds; the same message
// tampered with, re-dated or unsigned is answered 401, and a handler's error
// 500 (so the server retries it).
func TestWebhookReceiver(t *testing.T) {
	env := apitest.New(t, apitest.WithConfig(func(c *config.Config) {
		c.Webhook.AllowPrivate = true
		c.Webhook.PollInterval = 20 * time.Millisecond
	}))
	org := env.NewOrg("Webhook receiver")
	api, err := client.New(env.Listen(t)+"/api/v2", org.Key, client.HTTPClient(contractClient(t)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	var (
		mu       sync.Mutex
		messages []client.WebhookMessage
		headers  []http.Header
		bodies   [][]byte
		arrived  = make(chan struct{}, 16)
		receiver *client.WebhookReceiver
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		mu.Lock()
		headers, bodies = append(headers, r.Header.Clone()), append(bodies, b)
		h := receiver
		mu.Unlock()
		h.Handler(func(_ context.Context, m client.WebhookMessage) error {
			mu.Lock()
			messages = append(messages, m)
			mu.Unlock()
			return nil
		}).ServeHTTP(w, r)
		arrived <- struct{}{}
	}))
	t.Cleanup(srv.Close)

	ep, err := api.CreateWebhookEndpointWithResponse(ctx, nil, client.WebhookEndpointCreate{
		Url: srv.URL + "/hook", EnabledEvents: []string{"client.created"}})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	receiver, err = client.NewWebhookReceiver(ep.JSON201.Data.Secret)
	mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	created, err := api.CreateClientWithResponse(ctx, nil, client.ClientCreate{Name: "Hooked Audio"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-arrived:
	case <-ctx.Done():
		t.Fatal("no message arrived")
	}
	mu.Lock()
	got, header, body := messages, headers[0], bodies[0]
	mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("%d messages handled, want 1 (the receiver refused a genuine message?)", len(got))
	}
	m := got[0]
	if m.Type != "client.created" || m.ObjectType != client.ChangeObjectTypeClient || m.ID != header.Get("webhook-id") ||
		m.Timestamp.IsZero() {
		t.Errorf("message %+v", m)
	}
	rec, err := client.RecordOf[client.ClientRecord](m)
	if err != nil || !reflect.DeepEqual(rec, created.JSON201.ClientRecord) {
		t.Errorf("the message's record %+v (%v), the POST's %+v", rec, err, created.JSON201.ClientRecord)
	}
	if _, err := client.RecordOf[client.Equipment](m); err == nil {
		t.Error("a client's message decoded as equipment")
	}
	// The feed's change of the same write holds the same record.
	for ch, err := range api.NewFeed("", nil).Changes(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if ch.Id.String() != m.ID {
			continue
		}
		if fromFeed, err := client.RecordOf[client.ClientRecord](ch); err != nil || !reflect.DeepEqual(fromFeed, rec) {
			t.Errorf("the feed's record %+v (%v), the message's %+v", fromFeed, err, rec)
		}
		break
	}

	// What the handler answers to messages that are not genuine, and to a
	// handler's failure.
	send := func(method string, body []byte, header http.Header, handle func(context.Context, client.WebhookMessage) error) int {
		r := httptest.NewRequest(method, "/hook", bytes.NewReader(body))
		r.Header = header
		w := httptest.NewRecorder()
		receiver.Handler(handle).ServeHTTP(w, r)
		return w.Code
	}
	ok := func(context.Context, client.WebhookMessage) error { return nil }
	// Signed again with the endpoint's secret: at an hour ago (refused for
	// its age alone) and now (a control: the re-signing is right).
	signer, err := standardwebhooks.NewWebhook(ep.JSON201.Data.Secret)
	if err != nil {
		t.Fatal(err)
	}
	signedAt := func(at time.Time, body []byte) http.Header {
		h := header.Clone()
		sig, err := signer.Sign(h.Get("webhook-id"), at, body)
		if err != nil {
			t.Fatal(err)
		}
		h.Set("webhook-timestamp", fmt.Sprint(at.Unix()))
		h.Set("webhook-signature", sig)
		return h
	}
	unsigned := header.Clone()
	unsigned.Del("webhook-signature")
	// A message of a type this SDK does not know still reaches the handler,
	// which decides (a refusal would be retried until the endpoint is
	// disabled).
	var unknown client.WebhookMessage
	ping := []byte(`{"type":"ping","timestamp":"2026-12-04T10:00:00Z","data":null}`)
	keep := func(_ context.Context, m client.WebhookMessage) error { unknown = m; return nil }
	huge := bytes.Repeat([]byte(" "), client.MaxWebhookBody+1)
	for _, tt := range []struct {
		name   string
		method string
		body   []byte
		header http.Header
		handle func(context.Context, client.WebhookMessage) error
		want   int
	}{
		{"genuine", http.MethodPost, body, header, ok, http.StatusNoContent},
		{"tampered body", http.MethodPost, bytes.Replace(body, []byte("Hooked"), []byte("Forged"), 1), header, ok, http.StatusUnauthorized},
		{"signed again now", http.MethodPost, body, signedAt(time.Now(), body), ok, http.StatusNoContent},
		{"signed an hour ago", http.MethodPost, body, signedAt(time.Now().Add(-time.Hour), body), ok, http.StatusUnauthorized},
		{"unsigned", http.MethodPost, body, unsigned, ok, http.StatusUnauthorized},
		{"handler fails", http.MethodPost, body, header, func(context.Context, client.WebhookMessage) error { return errors.New("disk full") },
			http.StatusInternalServerError},
		{"an unknown type", http.MethodPost, ping, signedAt(time.Now(), ping), keep, http.StatusNoContent},
		{"authentic, not JSON", http.MethodPost, []byte("{"), signedAt(time.Now(), []byte("{")), ok, http.StatusBadRequest},
		{"over the bound", http.MethodPost, huge, header, ok, http.StatusRequestEntityTooLarge},
		{"GET", http.MethodGet, nil, header, ok, http.StatusMethodNotAllowed},
	} {
		if got := send(tt.method, tt.body, tt.header, tt.handle); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
	if unknown.Type != "ping" || unknown.ObjectType != "" || string(unknown.Data) != "null" {
		t.Errorf("the unknown type reached the handler as %+v", unknown)
	}
	if _, err := client.NewWebhookReceiver(strings.TrimPrefix(ep.JSON201.Data.Secret, "whsec_")); err == nil {
		t.Error("a secret without whsec_ was taken")
	}
}
