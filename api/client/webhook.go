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
//
// Messages arrive in any order, one record's too: several deliveries to
// an endpoint are in flight at once, so an .updated can come before its
// .created. Upsert a record unless what you hold has a later
// data.updated_at, and keep a tombstone of a deleted id so that a late
// message does not bring it back (docs/webhooks.md, "Ordering").
type WebhookMessage struct {
	// ID is the change's id, the webhook-id header: the same on every
	// copy of the message (each retry, a second pod's send while a paused
	// pod's request is still with the receiver, a manual retry).
	// Deduplicate on it without losing a change (docs/webhooks.md,
	// "Deduplicating"): on arrival mark it in progress, and return an
	// error for a message whose ID is in progress (Handler answers 500, so
	// it is retried once the first has ended); mark it done only once the
	// work is durably done or queued, and return nil for a message whose
	// ID is done; when the work fails, clear the mark before returning the
	// error, so that the retry is processed. Recording the ID as seen on
	// arrival loses the change when that first message fails. A manual
	// retry (POST …/retry) reuses the ID, so a receiver that has it marked
	// done acknowledges it without processing it again unless told to
	// forget it.
	ID string
	// Type is the change's type, such as "event.created" or
	// "quote.approved".
	Type string
	// ObjectType is the type of the record in Data, the part of Type
	// before its last dot (empty when Type has none).
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
// any other error, that an authentic body is not JSON of the message's
// shape. An authentic message of a type this SDK does not know (one a
// later release sends) is returned as it came, ObjectType empty when its
// type has no dot: the handler decides, so that a receiver built on an
// older SDK does not refuse it until its endpoint is disabled.
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
	var objectType ChangeObjectType
	if dot := strings.LastIndexByte(m.Type, '.'); dot > 0 {
		objectType = ChangeObjectType(m.Type[:dot])
	}
	return WebhookMessage{ID: header.Get("webhook-id"), Type: m.Type, ObjectType: objectType,
		Timestamp: m.Timestamp, Data: m.Data}, nil
}

// MaxWebhookBody is how much of a request's body Handler reads: a message
// carries the record's whole state, and a quote of 500 long lines whose text
// is full of characters JSON escapes is about 3 MB (docs/webhooks.md).
const MaxWebhookBody = 8 << 20

// Handler is an http.Handler for the endpoint's URL: it reads the body of a
// POST (up to MaxWebhookBody), verifies it and hands the message to handle.
// It answers 204 when handle returns nil; 500 when it returns an error; 401
// to a message that is not authentic; 400 to a body that is not a message;
// 413 to a body over the bound; and 405 to another method. eventapi retries
// every answer but a 2xx with backoff, and disables the endpoint once none
// of its deliveries has succeeded for 3 days; a 410 Gone disables it at
// once, without retries (Handler never answers 410; a router in front of
// it might) (docs/webhooks.md): return
// nil for a message you mean to ignore. handle runs before the answer,
// within the delivery's timeout (10 s by default): queue slow work and
// return.
func (r *WebhookReceiver) Handler(handle func(context.Context, WebhookMessage) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "webhook messages are POSTed", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, MaxWebhookBody))
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			http.Error(w, "body over the bound", http.StatusRequestEntityTooLarge)
			return
		case err != nil:
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
