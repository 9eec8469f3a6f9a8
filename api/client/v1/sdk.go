package v1

import (
	"github.com/eventapi/eventapi/api/client"
)

// API is the v1 client: the generated ClientWithResponses over the SDK's
// transport (authentication, retries on 429 and 503, *client.APIError for
// answers of 400 or more). v1 is deprecated: see its document's Sunset date.
//
// v1 takes no Idempotency-Key, so the transport sends none
// (client.Transport.V1): its one write, PATCH, sets absolute values and is
// repeated without a key after a 503 or a lost answer, since sending it
// again applies the same values; its errors name no key.
type API struct {
	*ClientWithResponses
	Raw *Client
}

// New returns a v1 client for baseURL (the v1 root, for example
// http://localhost:8080/api/v1) authenticating with key (an sk_live_ key or
// a v2 key with the v1 scopes). A baseURL that client.CheckBaseURL refuses
// is an error.
func New(baseURL, key string, opts ...client.Option) (*API, error) {
	base, err := client.CheckBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	t := client.NewTransport(key, opts...)
	t.V1, t.AutoIdempo = true, false
	raw, err := NewClient(base, WithHTTPClient(t))
	if err != nil {
		return nil, err
	}
	return &API{ClientWithResponses: &ClientWithResponses{ClientInterface: raw}, Raw: raw}, nil
}
