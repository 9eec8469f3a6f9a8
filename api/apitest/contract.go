package apitest

import (
	"testing"

	"github.com/eventapi/eventapi/api/apitest/contract"
)

// CheckContract validates a response against the OpenAPI documents
// (contract.Assert). The harness calls it for every response it receives;
// tests that send requests another way call it themselves.
func CheckContract(t testing.TB, method, path string, reqBody []byte, res *Response) {
	t.Helper()
	contract.Assert(t, method, path, reqBody, &contract.Response{Status: res.Status, Header: res.Header, Body: res.Body})
}
