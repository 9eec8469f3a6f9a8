package v1

import (
	"strings"

	"github.com/eventapi/eventapi/api/client"
)

// API is the v1 client: the generated ClientWithResponses over the SDK's
// transport (authentication, retries on 429 and 503, *client.APIError for
// answers of 400 or more). v1 is deprecated: see its document's Sunset date.
type API struct {
	*ClientWithResponses
	Raw *Client
}

// New returns a v1 client for baseURL (the v1 root, for example
// http://localhost:8080/api/v1) authenticating with key (an sk_live_ key or
// a v2 key with the v1 scopes).
func New(baseURL, key string, opts ...client.Option) (*API, error) {
	t := client.NewTransport(key, opts...)
	raw, err := NewClient(strings.TrimSuffix(baseURL, "/")+"/", WithHTTPClient(t))
	if err != nil {
		return nil, err
	}
	return &API{ClientWithResponses: &ClientWithResponses{ClientInterface: raw}, Raw: raw}, nil
}
