package main

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// clientKind is how the load's requests reach HAProxy. HAProxy in TCP mode
// (like kube-proxy) picks a pod per connection, not per request, and keeps
// an open connection on a pod it has marked DOWN, so the two kinds see a
// fault differently:
//
//   - keepalive: a pool of up to 64 idle connections (an SDK, a service
//     with a pooled HTTP client);
//   - new: a new connection for every request (curl per call, PHP,
//     serverless functions, a cold client), which meets HAProxy's routing
//     decision every time, including "no server available".
type clientKind struct {
	name   string
	client *http.Client
}

// clientKindNames are the -clients values besides "both".
var clientKindNames = []string{"keepalive", "new"}

// newClients returns the client kinds -clients names: keepalive, new or
// both (the load then alternates between them in blocks of 10 requests,
// so each sends half the rate and the whole mix).
func newClients(which string) ([]clientKind, error) {
	var names []string
	switch which {
	case "both":
		names = clientKindNames
	case "keepalive", "new":
		names = []string{which}
	default:
		return nil, fmt.Errorf("-clients %q: want %s or both", which, strings.Join(clientKindNames, ", "))
	}
	out := make([]clientKind, len(names))
	for i, n := range names {
		tr := &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second,
			DisableCompression: true} // as before responses were gzipped: figures stay comparable
		if n == "new" {
			tr.DisableKeepAlives = true
		}
		out[i] = clientKind{name: n, client: &http.Client{Timeout: 30 * time.Second, Transport: tr}}
	}
	return out, nil
}

// dropped counts a phase's requests the load did not send (client "-").
func dropped(phase string, rs []result) int {
	n := 0
	for _, r := range rs {
		if r.phase == phase && r.client == "-" {
			n++
		}
	}
	return n
}
