package rest_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/apitest/contract"
	"github.com/eventapi/eventapi/api/rest"
)

// TestTheContractKnowsTheRoutersNotFound: the contract check tells an
// unrouted path's 404 by its message, which it cannot import from here.
func TestTheContractKnowsTheRoutersNotFound(t *testing.T) {
	if contract.NoSuchRouteMessage != rest.NoSuchRouteMessage || rest.NoSuchRoute().Message != rest.NoSuchRouteMessage {
		t.Errorf("contract %q, rest %q (%q)", contract.NoSuchRouteMessage, rest.NoSuchRouteMessage, rest.NoSuchRoute().Message)
	}
}
