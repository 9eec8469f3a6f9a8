package config

import (
	"strings"
	"testing"
	"time"
)

func TestScaleOutSettings(t *testing.T) {
	const db = "postgres://postgres@127.0.0.1:6432/x"
	tests := []struct {
		name    string
		env     map[string]string
		wantErr []string
		want    func(c Config) bool
	}{
		{name: "defaults", env: map[string]string{},
			want: func(c Config) bool {
				return c.DrainDelay == 5*time.Second && c.DatabasePooler == PoolerNone && c.MigrationURL() == db
			}},
		{name: "transaction pooler with a direct migration URL", env: map[string]string{
			"EVENTAPI_DATABASE_POOLER": "transaction", "EVENTAPI_DRAIN_DELAY": "0s",
			"EVENTAPI_MIGRATE_DATABASE_URL": "postgres://postgres@127.0.0.1:5432/x"},
			want: func(c Config) bool {
				return c.DrainDelay == 0 && c.DatabasePooler == PoolerTransaction &&
					c.MigrationURL() == "postgres://postgres@127.0.0.1:5432/x"
			}},
		{name: "bad values", env: map[string]string{
			"EVENTAPI_DATABASE_POOLER": "session", "EVENTAPI_DRAIN_DELAY": "-1s",
			"EVENTAPI_MIGRATE_DATABASE_URL": "mysql://x"},
			wantErr: []string{"EVENTAPI_DATABASE_POOLER", "EVENTAPI_DRAIN_DELAY", "EVENTAPI_MIGRATE_DATABASE_URL"}},
		// the driver's own check, as for EVENTAPI_DATABASE_URL, with the
		// password masked
		{name: "a migration URL the driver refuses", env: map[string]string{
			"EVENTAPI_MIGRATE_DATABASE_URL": "postgres://u:secret@h/db?sslmode=bogus"},
			wantErr: []string{"EVENTAPI_MIGRATE_DATABASE_URL", "sslmode"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := FromEnv(func(k string) string {
				if k == "EVENTAPI_DATABASE_URL" {
					return db
				}
				return tt.env[k]
			})
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("error %v shows the password", err)
			}
			for _, w := range tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error %v does not mention %s", err, w)
				}
			}
			if tt.want != nil {
				if err != nil {
					t.Fatal(err)
				}
				if !tt.want(c) {
					t.Fatalf("unexpected config: %+v", c)
				}
			}
		})
	}
}
