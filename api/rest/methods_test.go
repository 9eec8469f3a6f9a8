package rest

import "testing"

func TestIsWrite(t *testing.T) {
	for method, want := range map[string]bool{
		"POST": true, "PATCH": true, "PUT": true, "DELETE": true,
		"GET": false, "HEAD": false, "OPTIONS": false, "TRACE": false, "CONNECT": false, "FOO": false,
	} {
		if got := IsWrite(method); got != want {
			t.Errorf("IsWrite(%s) = %v, want %v", method, got, want)
		}
	}
}
