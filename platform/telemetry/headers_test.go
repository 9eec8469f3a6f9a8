package telemetry

import (
	"strings"
	"testing"
)

// The report's two typos of a header list: a raw token holding '%' (not
// percent-encoding) and "name:value" instead of "name=value". Each value
// is a credential no log line or error may repeat.
const (
	typoSecret1 = "TOPSECRETTOKEN"
	typoSecret2 = "OTHERSECRET"
	typoHeaders = "x-honeycomb-team=" + typoSecret1 + "%zz,Authorization:Bearer " + typoSecret2
)

// TestParseHeaderList: a header list is read as the OTLP exporters read
// it; each entry they would log and drop has a problem naming it by name
// or position, never by its value.
func TestParseHeaderList(t *testing.T) {
	type want struct{ key, value, problem string }
	for _, tc := range []struct {
		name string
		in   string
		want []want
	}{
		{"unset", "", nil},
		{"blank is unset", "  ", nil},
		{"one pair", "x-honeycomb-team=abc123", []want{{"x-honeycomb-team", "abc123", ""}}},
		{"names and values trimmed", " api-key = abc ,  X-Scope-OrgID=tenant1 ", []want{{"api-key", "abc", ""}, {"X-Scope-OrgID", "tenant1", ""}}},
		{"values percent-decoded", "Authorization=Bearer%20abc%3D%3D", []want{{"Authorization", "Bearer abc==", ""}}},
		{"a space in a value", "Authorization=Bearer abc", []want{{"Authorization", "Bearer abc", ""}}},
		{"the first '=' splits", "api-key=abc==", []want{{"api-key", "abc==", ""}}},
		{"an empty value", "api-key=", []want{{"api-key", "", ""}}},
		{"'+' is not a space", "k=a+b", []want{{"k", "a+b", ""}}},
		{"a colon instead of '='", "Authorization:Bearer abc", []want{{"Authorization:Bearer abc", "", "entry 1 of 1 has no '='"}}},
		{"a stray comma", "api-key=abc,", []want{{"api-key", "abc", ""}, {"", "", "entry 2 of 2 is empty"}}},
		{"a name that is no header name", "Authorization: Bearer abc=", []want{{"Authorization: Bearer abc", "", "entry 1 of 1: the text before '=' is not a header name"}}},
		{"no name", "=abc", []want{{"", "", "entry 1 of 1: the text before '=' is not a header name"}}},
		{"a non-ASCII name", "clé=abc", []want{{"clé", "", "entry 1 of 1: the text before '=' is not a header name"}}},
		{"a '%' that starts no escape", "api-key=abc%zz", []want{{"api-key", "", "header api-key (entry 1 of 1): the value is not percent-encoded text"}}},
		{"a '%' at the end", "a=1,api-key=abc%", []want{{"a", "1", ""}, {"api-key", "", "header api-key (entry 2 of 2)"}}},
		{"the report's typos", typoHeaders, []want{
			{"x-honeycomb-team", "", "header x-honeycomb-team (entry 1 of 2)"},
			{"Authorization:Bearer " + typoSecret2, "", "entry 2 of 2 has no '='"}}},
	} {
		got := parseHeaderList(tc.in)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d entries %+v, want %d", tc.name, len(got), got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			g := got[i]
			if g.key != w.key || (w.problem == "" && g.value != w.value) || !strings.HasPrefix(g.problem, w.problem) || (w.problem == "") != (g.problem == "") {
				t.Errorf("%s: entry %d is %+v, want key %q value %q problem %q", tc.name, i+1, g, w.key, w.value, w.problem)
			}
		}
	}
}

// TestCheckEnvNeverRepeatsAHeaderValue: the report's typos in each header
// variable are refused, by name or position, and the error carries neither
// credential.
func TestCheckEnvNeverRepeatsAHeaderValue(t *testing.T) {
	for _, name := range otlpHeaderVars {
		err := CheckEnv(func(k string) string {
			if k == name {
				return typoHeaders
			}
			return ""
		})
		if err == nil {
			t.Fatalf("%s=<the report's typos> passed the check", name)
		}
		msg := err.Error()
		for _, want := range []string{name + ": header x-honeycomb-team (entry 1 of 2)", name + ": entry 2 of 2 has no '='"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: error %q lacks %q", name, msg, want)
			}
		}
		for _, secret := range []string{typoSecret1, typoSecret2, "%zz", "Bearer"} {
			if strings.Contains(msg, secret) {
				t.Errorf("%s: error %q repeats %q", name, msg, secret)
			}
		}
	}
}

// TestHeaderSecrets: every text of a header list that may be a credential
// is redacted, the longest first; names that are header names and values
// too short to be credentials are not.
func TestHeaderSecrets(t *testing.T) {
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_HEADERS":         typoHeaders,
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS":  "api-key=abc%3Ddef, X-Scope-OrgID=1",
		"OTEL_EXPORTER_OTLP_METRICS_HEADERS": "Authorization: Bearer tok=",
	}
	got := headerSecrets(func(k string) string { return env[k] })
	want := []string{
		"x-honeycomb-team=" + typoSecret1 + "%zz",
		"Authorization:Bearer " + typoSecret2,
		"Authorization: Bearer tok=",
		"Authorization: Bearer tok",
		typoSecret1 + "%zz",
		"abc%3Ddef",
		"abc=def",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("secrets\n%q\nwant\n%q", got, want)
	}
}
