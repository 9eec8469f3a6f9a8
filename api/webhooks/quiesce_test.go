package webhooks_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/webhooks/delivery"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/platform/telemetry/logtest"
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

// holdingReceiver is a receiver that signals held when a request arrives
// and answers it once the test sends on (or closes) answer; arrived counts
// the requests.
func holdingReceiver(t *testing.T) (rcv *receiver, held chan struct{}, answer chan struct{}, arrived *atomic.Int32) {
	rcv = newReceiver(t)
	held, answer, arrived = make(chan struct{}, 4), make(chan struct{}), new(atomic.Int32)
	rcv.hold = func(*http.Request) {
		arrived.Add(1)
		held <- struct{}{}
		<-answer
	}
	return rcv, held, answer, arrived
}

// TestQuiesceLetsTheAttemptInFlightFinish: a pod's worker quiesced when its
// drain starts sends the attempt it has in flight to its end and records
// it, where stopping cancelled it and another pod sent the change again;
// and it claims nothing more, though a delivery is due and its slot is
// free again.
func TestQuiesceLetsTheAttemptInFlightFinish(t *testing.T) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	rcv, held, answer, arrived := holdingReceiver(t)
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

// TestStopLetsTheAttemptInFlightFinish: a worker stopped while an attempt
// is in flight (a pod closing its pools after its drain) waits for the
// receiver's answer and records it, where it cancelled the attempt and
// handed the delivery back for another pod to send again.
func TestStopLetsTheAttemptInFlightFinish(t *testing.T) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	rcv, held, answer, arrived := holdingReceiver(t)
	ep := register(t, a, rcv, "client.created")
	cfg := env.Cfg.Webhook
	cfg.Workers = 1
	var log logtest.Buffer
	w := delivery.Start(env.Svc.DB, sealerOf(t, env), telemetry.NewLogger(&log, "info"), cfg)

	client := createClient(t, a, "in flight at the stop")
	<-held
	stopped := make(chan struct{})
	go func() {
		w.Stop()
		close(stopped)
	}()
	waitFor(t, "Stop to say it waits for the attempt", func() bool {
		return strings.Contains(log.String(), `"msg":"webhooks: waiting for the attempts in flight to end","attempts":1`)
	})
	select {
	case <-stopped:
		t.Fatal("Stop returned while the attempt was still with the receiver")
	default:
	}
	close(answer)
	<-stopped
	var status string
	if err := env.Svc.DB.NewRaw(`SELECT d.status FROM webhook_deliveries d
		JOIN changes ch ON ch.organization_id = d.organization_id AND ch.seq = d.change_seq
		WHERE d.organization_id = ? AND d.endpoint_id = ? AND ch.object_id = ?`, a.ID, ep, client).Scan(context.Background(), &status); err != nil {
		t.Fatal(err)
	}
	if status != "succeeded" || arrived.Load() != 1 {
		t.Fatalf("after Stop: delivery %q, %d requests; want the attempt in flight recorded as succeeded, sent once", status, arrived.Load())
	}
}
