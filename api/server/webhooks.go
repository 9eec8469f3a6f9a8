package server

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/webhooks"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/seal"
)

// webhookOptions reads (or makes, on first start) the key that seals
// webhook signing secrets; it is a service secret in the database like the
// cursor key, so every pod shares it without configuration
// (docs/webhooks.md, "Secrets").
func webhookOptions(ctx context.Context, db *bun.DB, cfg config.Config) (webhooks.Options, error) {
	key, err := database.Secret(ctx, db, "webhook_secret_key", 32)
	if err != nil {
		return webhooks.Options{}, err
	}
	sealer, err := seal.New(key)
	if err != nil {
		return webhooks.Options{}, err
	}
	return webhooks.Options{Sealer: sealer, AllowPrivate: cfg.Webhook.AllowPrivate}, nil
}

// StartWebhooks starts the webhook delivery worker (docs/webhooks.md). It is
// separate from Open so that callers finish setting up the pool (tests add
// query hooks) before the worker's first query; call it once.
func (s *Service) StartWebhooks() { s.startWebhooks() }

// QuiesceWebhooks stops the webhook worker from starting attempts, letting
// those in flight finish and be recorded (docs/webhooks.md, "Shutdown");
// Close stops it for good. serve calls it when the drain starts
// (Shutdown.OnDrain).
func (s *Service) QuiesceWebhooks() { s.webhooks.Quiesce() }
