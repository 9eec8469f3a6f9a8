// Package v1 is the Go SDK of eventapi's deprecated v1 surface, generated
// from /api/v1/openapi.json by scripts/gen-sdk.sh (eventapi_v1.gen.go), with
// New wiring in the transport of package client.
package v1

//go:generate ../../../scripts/gen-sdk.sh
