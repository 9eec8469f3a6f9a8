package client_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/client"
	v1 "github.com/eventapi/eventapi/api/client/v1"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// unbindable is, by declared type and format, a value a gateway may stamp
// that the generated code cannot bind.
var unbindable = map[[2]string]string{
	{"string", "uuid"}:      "a1b2c3d4-gw-7f3a",              // a gateway's own request id
	{"integer", ""}:         "100, 100;w=60",                 // Envoy's IETF draft RateLimit headers
	{"string", "date-time"}: "Sun, 06 Dec 2026 03:00:00 GMT", // an HTTP date
	{"boolean", ""}:         "@1688169599",                   // RFC 9745's Deprecation
	{"string", ""}:          "",                              // a header blanked
}

// gateway is a reverse proxy to target that sets every response header
// the documents declare to a value that does not bind, and hands a
// success answer's body to body (nil: unchanged).
func gateway(t *testing.T, target string, body func([]byte) []byte) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := httputil.NewSingleHostReverseProxy(u)
	p.ModifyResponse = func(res *http.Response) error {
		for name, f := range client.DeclaredHeaderFormats() {
			v, ok := unbindable[f]
			if !ok {
				t.Errorf("no unbindable value for %s's format %v", name, f)
			}
			res.Header.Set(name, v)
		}
		if body != nil && res.StatusCode < 300 {
			b, err := io.ReadAll(res.Body)
			if err != nil {
				return err
			}
			_ = res.Body.Close()
			b = body(b)
			res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
			res.Header.Set("Content-Length", strconv.Itoa(len(b)))
		}
		return nil
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestBehindAGatewayThatRewritesHeaders: behind a gateway that stamps its
// own values on every declared header (docs/sdk.md, "Headers a gateway
// rewrites"), v2 writes and reads and v1 reads succeed, the gateway's
// values kept under X-Unbound-<name>; the generated client alone fails on
// the same answers.
func TestBehindAGatewayThatRewritesHeaders(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Gateway")
	base := gateway(t, env.Listen(t), nil)
	api, err := client.New(base+"/api/v2", org.Key)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	created, err := api.CreateVehicleWithResponse(ctx, nil, client.VehicleCreate{Name: "Truck 9"})
	if err != nil || created.JSON201 == nil {
		t.Fatalf("create through the gateway: %v", err)
	}
	if got := created.HTTPResponse.Header.Get(client.UnboundHeaderPrefix + "X-Request-Id"); got != "a1b2c3d4-gw-7f3a" {
		t.Errorf("X-Unbound-X-Request-Id = %q, want the gateway's id", got)
	}
	if got := created.HTTPResponse.Header.Get(client.UnboundHeaderPrefix + "X-RateLimit-Limit"); got != "100, 100;w=60" {
		t.Errorf("X-Unbound-X-RateLimit-Limit = %q, want the gateway's value", got)
	}
	read, err := api.GetVehicleWithResponse(ctx, created.JSON201.Data.Id)
	if err != nil || read.JSON200 == nil || read.JSON200.Data.Name != "Truck 9" {
		t.Fatalf("read through the gateway: %v", err)
	}
	list, err := api.ListVehiclesWithResponse(ctx, nil)
	if err != nil || list.JSON200 == nil || len(list.JSON200.Data) != 1 {
		t.Fatalf("list through the gateway: %v", err)
	}

	// The generated client alone, without the SDK's transport, refuses the
	// gateway's answers: the gateway does stamp values that do not bind.
	bare, err := client.NewClientWithResponses(base+"/api/v2/", client.WithRequestEditorFn(
		func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+org.Key)
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bare.GetVehicleWithResponse(ctx, created.JSON201.Data.Id); err == nil {
		t.Error("the generated client read the gateway's answer: the gateway stamps values that bind")
	}

	legacyKey := env.NewKey(org.ID, apikey.Legacy, tenancy.EquipmentRead)
	legacy, err := v1.New(base+"/api/v1", legacyKey)
	if err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 v1 is deprecated, and its clients still go through the same transport
	if res, err := legacy.ListEquipmentV1WithResponse(ctx, nil); err != nil || res.JSON200 == nil {
		t.Fatalf("v1 read through the gateway: %v", err)
	}
}

// TestWriteAnswerThatIsNotJSON: a gateway that mangles the body of a
// committed write's answer leaves an error that names the write's
// Idempotency-Key and says it may have been applied; repeating the write
// with that key (here past the gateway) gets the stored answer, not a
// second record.
func TestWriteAnswerThatIsNotJSON(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Mangled")
	direct := env.Listen(t)
	mangled := gateway(t, direct, func(b []byte) []byte { return b[:len(b)/2] })
	api, err := client.New(mangled+"/api/v2", org.Key)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	body := client.VehicleCreate{Name: "Truck 10"}
	_, err = api.CreateVehicleWithResponse(ctx, nil, body)
	key := client.IdempotencyKeyOf(err)
	if err == nil || key == "" {
		t.Fatalf("create with a mangled answer: err %v, key %q; want an error naming the key", err, key)
	}
	t.Log(err)

	again, err := client.New(direct+"/api/v2", org.Key)
	if err != nil {
		t.Fatal(err)
	}
	replay, err := again.CreateVehicleWithResponse(ctx, &client.CreateVehicleParams{IdempotencyKey: &key}, body)
	if err != nil || replay.JSON201 == nil || replay.Headers201 == nil || replay.Headers201.IdempotentReplayed == nil {
		t.Fatalf("the write repeated with its key: %v (want the replayed 201)", err)
	}
	list, err := again.ListVehiclesWithResponse(ctx, nil)
	if err != nil || len(list.JSON200.Data) != 1 {
		t.Fatalf("vehicles after the repeat: %v, %d (want 1)", err, len(list.JSON200.Data))
	}
}
