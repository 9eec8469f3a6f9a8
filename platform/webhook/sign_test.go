package webhook

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// TestSignVerifiesWithTheStandardLibrary signs as the worker does and
// verifies with the Standard Webhooks reference library: the genuine
// message passes; a tampered body, another secret and an old timestamp fail.
func TestSignVerifiesWithTheStandardLibrary(t *testing.T) {
	secret, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret %q lacks whsec_", secret)
	}
	key, err := SecretKey(secret)
	if err != nil || len(key) != 32 {
		t.Fatalf("SecretKey: %d bytes, %v", len(key), err)
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"type":"event.created","timestamp":"2026-11-23T10:00:00Z","data":{"id":"x"}}`)
	id := "5d0b2c1e-1b7a-4c55-9f3e-6a1f2f0d9a11"
	headers := func(ts time.Time, b []byte) http.Header {
		h := http.Header{}
		SetHeaders(h, key, id, ts, b)
		return h
	}
	now := time.Now()
	if err := wh.Verify(body, headers(now, body)); err != nil {
		t.Fatalf("genuine message: %v", err)
	}
	tampered := bytes.Replace(body, []byte("created"), []byte("deleted"), 1)
	if err := wh.Verify(tampered, headers(now, body)); err == nil {
		t.Error("tampered body verified")
	}
	if err := wh.Verify(body, headers(now.Add(-time.Hour), body)); err == nil {
		t.Error("hour-old timestamp verified")
	}
	other, _ := NewSecret()
	wh2, _ := standardwebhooks.NewWebhook(other)
	if err := wh2.Verify(body, headers(now, body)); err == nil {
		t.Error("verified under another secret")
	}
	// The library's own signer agrees byte for byte.
	want, err := wh.Sign(id, now, body)
	if err != nil {
		t.Fatal(err)
	}
	if got := Sign(key, id, now, body); got != want {
		t.Errorf("Sign = %s, library = %s", got, want)
	}
}
