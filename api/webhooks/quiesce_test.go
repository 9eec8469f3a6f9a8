package webhooks_test

import (
	"context"
	"log/slog"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/webhooks/delivery"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/seal"
)

// sealerOf opens the sealer of env's webhook secrets, for a worker the test
// starts itself.
func sealerOf(t *testing.T, env *apitest.Env) *seal.Sealer {
	t.Helper()
	key, err := database.Secret(context.Background(), env.Svc.DB, "webhook_secret_key", 32)
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := seal.New(key)
	if err != nil {
		t.Fatal(err)
	}
	return sealer
}

// TestQuiesceLetsTheAttemptInFlightFinish: a pod's worker quiesced when its
// drain starts sends the attempt it has in flight to its end and records
// it, where stopping cancelled it and another pod sent the change again;
// and it claims nothing more, though a delivery is due and its slot is
// free again.
func TestQuiesceLetsTheAttemptInFlightFinish(t *testing.T) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	rcv := newReceiver(t)
	held, answer := make(chan struct{}, 4), make(chan struct{})
	var arrived atomic.Int32
	rcv.hold = func(*http.Request) {
		arrived.Add(1)
		held <- struct{}{}
		<-answer
	}
	t.Cleanup(func() { close(answer) })
	ep := register(t, a, rcv, "client.created")
	cfg := env.Cfg.Webhook
	cfg.Workers = 1
	w := delivery.Start(env.Svc.DB, sealerOf(t, env), slog.New(slog.DiscardHandler), cfg)
	defer w.Stop()

	first := createClient(t, a, "in flight at the drain")
	<-held
	second := createClient(t, a, "due at the drain")
	status := func(client string) (s string) {
		err := env.Svc.DB.NewRaw(`SELECT d.status FROM webhook_deliveries d
			JOIN changes ch ON ch.organization_id = d.organization_id AND ch.seq = d.change_seq
			WHERE d.organization_id = ? AND d.endpoint_id = ? AND ch.object_id = ?`, a.ID, ep, client).Scan(context.Background(), &s)
		if err != nil {
			return ""
		}
		return s
	}
	waitFor(t, "the second change's delivery queued", func() bool { return status(second) == "pending" })

	w.Quiesce()
	answer <- struct{}{}
	waitFor(t, "the attempt in flight recorded", func() bool { return status(first) == "succeeded" })
	w.Stop()
	if n := arrived.Load(); n != 1 {
		t.Fatalf("the receiver got %d requests; want only the one in flight when the worker was quiesced", n)
	}
	if s := status(second); s != "pending" {
		t.Fatalf("the due delivery is %q after the quiesced worker stopped; want pending, for another pod", s)
	}
}
