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
		SetHeaders(h, id, ts, b, key)
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

// TestSignedWithTwoSecrets: a message signed with a new secret and the one
// it replaced (a rotation's grace period) carries both signatures, new
// first, and verifies with the Standard Webhooks library under either
// secret, and under no other.
func TestSignedWithTwoSecrets(t *testing.T) {
	secrets := make([]string, 3)
	keys := make([][]byte, 3)
	for i := range secrets {
		var err error
		if secrets[i], err = NewSecret(); err != nil {
			t.Fatal(err)
		}
		if keys[i], err = SecretKey(secrets[i]); err != nil {
			t.Fatal(err)
		}
	}
	body := []byte(`{"type":"client.created","timestamp":"2026-12-02T10:00:00Z","data":{"id":"x"}}`)
	id, now := "9f0c1d2e-3b4a-4c5d-8e6f-7a8b9c0d1e2f", time.Now()
	h := http.Header{}
	SetHeaders(h, id, now, body, keys[0], keys[1])
	if got, want := h.Get(HeaderSignature), Sign(keys[0], id, now, body)+" "+Sign(keys[1], id, now, body); got != want {
		t.Fatalf("webhook-signature %q, want %q", got, want)
	}
	for i, secret := range secrets {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(body, h); (err == nil) != (i < 2) {
			t.Errorf("secret %d of 3 (the first two sign): verify error %v", i+1, err)
		}
	}
}
