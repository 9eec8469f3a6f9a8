package rest

import "testing"

func TestBodyErrorCode(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"v2 envelope", `{"error":{"code":"not_found","message":"m","details":{"a":[1]},"request_id":"r"}}`, "not_found"},
		{"v1 envelope", `{"error":{"code":"NOT_FOUND","message":"m"}}`, "NOT_FOUND"},
		{"white space first", " \n{\"error\":{\"code\":\"rate_limited\"}}", "rate_limited"},
		{"a record", `{"data":{"id":"x"}}`, ""},
		{"not an object", `[1,2]`, ""},
		{"not JSON", `<html>502</html>`, ""},
		{"cut off", `{"error":{"code":"not_fo`, ""},
		{"empty", ``, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := BodyErrorCode([]byte(tt.body)); got != tt.want {
				t.Fatalf("BodyErrorCode(%q) = %q, want %q", tt.body, got, tt.want)
			}
		})
	}
}
