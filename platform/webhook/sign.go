package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix opens every signing secret, as Standard Webhooks recommends.
const SecretPrefix = "whsec_"

// secretBytes is the size of a signing secret's key (the specification
// asks for 24 to 64 bytes).
const secretBytes = 32

// NewSecret returns a new random signing secret: "whsec_" and the standard
// base64 of 32 random bytes.
func NewSecret() (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// SecretKey returns the HMAC key of a signing secret: its base64 part decoded.
func SecretKey(secret string) ([]byte, error) {
	if !strings.HasPrefix(secret, SecretPrefix) {
		return nil, errors.New("webhook: secret lacks the whsec_ prefix")
	}
	return base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
}

// Headers are the Standard Webhooks headers of one message.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// Sign returns the webhook-signature value of a message: "v1," and the
// base64 HMAC-SHA256, under key, of "id.timestamp.body" (timestamp in Unix
// seconds).
func Sign(key []byte, id string, ts time.Time, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(strconv.FormatInt(ts.Unix(), 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// SetHeaders sets the three Standard Webhooks headers on h, the signature
// under each of keys, space-separated in their order ("v1,<a> v1,<b>"): the
// specification's form for a message signed with several secrets, which a
// receiver accepts when any one of them verifies. An endpoint whose secret
// was rotated is signed with the new secret and the previous one during the
// grace period (docs/webhooks.md, "Rotating the secret").
func SetHeaders(h http.Header, id string, ts time.Time, body []byte, keys ...[]byte) {
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	sigs := make([]string, len(keys))
	for i, k := range keys {
		sigs[i] = Sign(k, id, ts, body)
	}
	h.Set(HeaderSignature, strings.Join(sigs, " "))
}
