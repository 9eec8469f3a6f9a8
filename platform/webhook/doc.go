// Package webhook holds the parts of webhook delivery that know nothing of
// the API or the database (docs/webhooks.md): which addresses an endpoint
// may point at (SSRF refusals, checked at registration and again at every
// dial), the Standard Webhooks signature, the signing secrets (sealed at rest by
// platform/seal), and the retry schedule.
package webhook
