package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// WebhookReceiver checks and decodes the messages eventapi sends to a webhook
// endpoint (docs/webhooks.md, "The message"), with the Standard Webhooks
// library: a message is authentic when any one of its signatures verifies
// under the endpoint's secret (two are sent while a rotated secret's grace
// period lasts) and its timestamp is within 5 minutes of the receiver's
// clock.
type WebhookReceiver struct {
	wh *standardwebhooks.Webhook
}

// NewWebhookReceiver takes the endpoint's secret, "whsec_…", as the answer
// that registered the endpoint or rotated its secret showed it.
func NewWebhookReceiver(secret string) (*WebhookReceiver, error) {
	if !strings.HasPrefix(secret, "whsec_") {
		return nil, errors.New(`eventapi: a webhook secret starts with "whsec_"`)
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return nil, fmt.Errorf("eventapi: webhook secret: %w", err)
	}
	return &WebhookReceiver{wh: wh}, nil
}

// WebhookMessage is one verified message.
type WebhookMessage struct {
	// ID is the change's id, the webhook-id header: the same on every
	// retry of the change. Deduplicate on it from the moment a message
	// arrives.
	ID string
	// Type is the change's type, such as "event.created" or
	// "quote.approved".
	Type string
	// ObjectType is the type of the record in Data, the part of Type
	// before its last dot.
	ObjectType ChangeObjectType
	// Timestamp is when the change was recorded (the change's created_at),
	// not when this attempt was sent.
	Timestamp time.Time
	// Data is the record as GET renders it (for a deletion, its last
	// state); RecordOf decodes it.
	Data json.RawMessage
}

// ErrWebhookSignature is (wrapped in) Verify's error when the message is not
// authentic: no signature verifies, a header is missing, or the timestamp is
// more than 5 minutes away. Answer such a message with 401.
var ErrWebhookSignature = errors.New("eventapi: webhook message not authentic")

// Verify checks body, the request's body read whole, against header's
// webhook-id, webhook-timestamp and webhook-signature, and decodes it. An
// error wrapping ErrWebhookSignature means the message must not be trusted;
// any other error, that an authentic body is not a message this SDK knows.
func (r *WebhookReceiver) Verify(body []byte, header http.Header) (WebhookMessage, error) {
	if err := r.wh.Verify(body, header); err != nil {
		return WebhookMessage{}, fmt.Errorf("%w: %w", ErrWebhookSignature, err)
	}
	var m struct {
		Type      string          `json:"type"`
		Timestamp time.Time       `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return WebhookMessage{}, fmt.Errorf("eventapi: webhook body: %w", err)
	}
	dot := strings.LastIndexByte(m.Type, '.')
	if dot <= 0 || len(m.Data) == 0 || string(m.Data) == "null" {
		return WebhookMessage{}, fmt.Errorf("eventapi: webhook body of type %q without a record", m.Type)
	}
	return WebhookMessage{ID: header.Get("webhook-id"), Type: m.Type, ObjectType: ChangeObjectType(m.Type[:dot]),
		Timestamp: m.Timestamp, Data: m.Data}, nil
}

// MaxWebhookBody is how much of a request's body Handler reads: a message
// carries the record's whole state, and a quote of 500 long lines whose text
// is full of characters JSON escapes is about 3 MB (docs/webhooks.md).
const MaxWebhookBody = 8 << 20

// Handler is an http.Handler for the endpoint's URL: it reads the body (up to
// MaxWebhookBody), verifies it and hands the message to handle. It answers
// 204 when handle returns nil, 500 when it returns an error (eventapi then
// retries the delivery with backoff), 401 to a message that is not
// authentic and 400 to a body it cannot read. handle runs before the answer,
// within the delivery's 10 s timeout: queue slow work and return.
func (r *WebhookReceiver) Handler(handle func(context.Context, WebhookMessage) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, MaxWebhookBody))
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		m, err := r.Verify(body, req.Header)
		switch {
		case errors.Is(err, ErrWebhookSignature):
			http.Error(w, "signature does not verify", http.StatusUnauthorized)
		case err != nil:
			http.Error(w, "not a webhook message", http.StatusBadRequest)
		default:
			if err := handle(req.Context(), m); err != nil {
				http.Error(w, "not handled", http.StatusInternalServerError)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		}
	})
}
