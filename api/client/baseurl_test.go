package client_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/client"
	v1 "github.com/eventapi/eventapi/api/client/v1"
)

// TestNewRefusesABadBaseURL: client.New and v1.New refuse a base URL that
// does not parse, whose scheme is not http or https, that has no host, or
// that has white space around it (a trailing newline read from a file or a
// secret), with an error that names the URL quoted. They took any string,
// every call then failed in the request builder with a *url.Error that
// Retryable took for a lost answer, and a restart loop went on forever.
func TestNewRefusesABadBaseURL(t *testing.T) {
	for _, tt := range []struct {
		url, err string // err: "" when accepted
	}{
		{"http://localhost:8080/api/v2", ""},
		{"https://api.example.com/api/v2/", ""},
		{"HTTP://localhost:8080/api/v2", ""},
		{"http://[::1]:8080/api/v2", ""},
		{"http://localhost:8080/api/v2\n", "white space"},
		{" http://localhost:8080/api/v2", "white space"},
		{"http://localhost:8080/api/v2\t", "white space"},
		{"127.0.0.1:8080/api/v2", "first path segment in URL cannot contain colon"},
		{"localhost/api/v2", "scheme"},
		{"http://[::1/api/v2", "missing ']' in host"},
		{"http://local\x7fhost/api/v2", "invalid control character"},
		{"ftp://localhost/api/v2", "scheme"},
		{"http:///api/v2", "no host"},
		{"http:/api/v2", "no host"},
		{"//localhost/api/v2", "scheme"},
		{"", "scheme"},
		{"http://:8080/api/v2", "no host"},
		{"http://localhost:99999/api/v2", "port"},
		{"http://localhost:0/api/v2", "port"},
		{"http://localhost:65535/api/v2", ""},
		{"http://localhost:8080/api/v2?x=1", "no query or fragment"},
		{"http://localhost:8080/api/v2?", "no query or fragment"},
		{"http://localhost:8080/api/v2#f", "no query or fragment"},
		{"http://localhost:8080/api/v2#", "no query or fragment"},
	} {
		for name, mk := range map[string]func() (any, error){
			"v2": func() (any, error) { return client.New(tt.url, "key") },
			"v1": func() (any, error) { return v1.New(tt.url, "key") },
		} {
			_, err := mk()
			if tt.err == "" {
				if err != nil {
					t.Errorf("%s %q: %v, want a client", name, tt.url, err)
				}
				continue
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), strconv.Quote(tt.url)) {
				t.Errorf("%s %q: err %v; want an error naming the URL quoted and saying %q", name, tt.url, err, tt.err)
			}
		}
	}
}
