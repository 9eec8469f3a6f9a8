package config

import (
	"strings"
	"testing"
	"time"
)

func TestWebhookSettings(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    Webhook
		wantErr []string
	}{
		{name: "defaults", env: map[string]string{}, want: Webhook{Workers: 4, PollInterval: time.Second, Timeout: 10 * time.Second,
			Lease: 15 * time.Second, EndpointConcurrency: 4, BackoffBase: 5 * time.Second, BackoffMax: 12 * time.Hour, RetryFor: 72 * time.Hour}},
		{name: "off and tuned", env: map[string]string{"EVENTAPI_WEBHOOK_WORKERS": "0", "EVENTAPI_WEBHOOK_ALLOW_PRIVATE": "true",
			"EVENTAPI_WEBHOOK_TIMEOUT": "2s", "EVENTAPI_WEBHOOK_POLL_INTERVAL": "20ms", "EVENTAPI_WEBHOOK_BACKOFF_BASE": "10ms",
			"EVENTAPI_WEBHOOK_BACKOFF_MAX": "1s", "EVENTAPI_WEBHOOK_RETRY_FOR": "1m", "EVENTAPI_WEBHOOK_ENDPOINT_CONCURRENCY": "1"},
			want: Webhook{Workers: 0, AllowPrivate: true, PollInterval: 20 * time.Millisecond, Timeout: 2 * time.Second,
				Lease: 7 * time.Second, EndpointConcurrency: 1, BackoffBase: 10 * time.Millisecond, BackoffMax: time.Second, RetryFor: time.Minute}},
		{name: "bad values", env: map[string]string{"EVENTAPI_WEBHOOK_WORKERS": "-1", "EVENTAPI_WEBHOOK_ALLOW_PRIVATE": "yes please",
			"EVENTAPI_WEBHOOK_LEASE": "5s", "EVENTAPI_WEBHOOK_ENDPOINT_CONCURRENCY": "0", "EVENTAPI_WEBHOOK_RETRY_FOR": "3d"},
			wantErr: []string{"EVENTAPI_WEBHOOK_WORKERS", "EVENTAPI_WEBHOOK_ALLOW_PRIVATE", "EVENTAPI_WEBHOOK_LEASE",
				"EVENTAPI_WEBHOOK_ENDPOINT_CONCURRENCY", "EVENTAPI_WEBHOOK_RETRY_FOR"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"EVENTAPI_DATABASE_URL": "postgres://u@h/db"}
			for k, v := range tc.env {
				env[k] = v
			}
			c, err := FromEnv(func(k string) string { return env[k] })
			if tc.wantErr != nil {
				for _, w := range tc.wantErr {
					if err == nil || !strings.Contains(err.Error(), w) {
						t.Errorf("error %v does not name %s", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Webhook != tc.want {
				t.Errorf("got %+v\nwant %+v", c.Webhook, tc.want)
			}
		})
	}
}
