package edge_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestRefusedSettings: against the real Redis, a database number it does
// not have and a user it does not know are its settings refused; a
// Redis that is not listening is an outage, and a good URL no error.
func TestRefusedSettings(t *testing.T) {
	good, err := url.Parse(pgtest.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	with := func(f func(u *url.URL)) string {
		u := *good
		f(&u)
		return u.String()
	}
	for _, tc := range []struct {
		name, url string
		refused   bool
		fails     bool
	}{
		{"the test URL", good.String(), false, false},
		{"a database number out of range", with(func(u *url.URL) { u.Path = "/99999" }), true, true},
		{"a user Redis does not have", with(func(u *url.URL) { u.User = url.UserPassword("nobody", "not-the-password") }), true, true},
		{"nothing listening", "redis://127.0.0.1:1/0", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := edge.NewRedis(tc.url, edge.RedisOptions{Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			err = r.Ping(context.Background())
			if (err != nil) != tc.fails || edge.RefusedSettings(err) != tc.refused {
				t.Fatalf("Ping: %v; RefusedSettings %v, want %v", err, edge.RefusedSettings(err), tc.refused)
			}
		})
	}
}
