package config_test

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"

	"github.com/eventapi/eventapi/platform/config"
)

// chartRedisURL is the chart's schema for redis.url: the URL must match
// pattern and none of refused (values.schema.json's "not": {"anyOf": …}).
type chartRedisURL struct {
	pattern *regexp.Regexp
	refused []*regexp.Regexp
}

func (c chartRedisURL) accepts(s string) bool {
	if !c.pattern.MatchString(s) {
		return false
	}
	for _, re := range c.refused {
		if re.MatchString(s) {
			return false
		}
	}
	return true
}

func readChartRedisURL(t *testing.T) chartRedisURL {
	t.Helper()
	raw, err := os.ReadFile("../../charts/eventapi/values.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	type pattern struct {
		Pattern string `json:"pattern"`
	}
	var schema struct {
		Properties struct {
			Redis struct {
				Properties struct {
					URL struct {
						Pattern string `json:"pattern"`
						Not     struct {
							AnyOf []pattern `json:"anyOf"`
						} `json:"not"`
					} `json:"url"`
				} `json:"properties"`
			} `json:"redis"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	u := schema.Properties.Redis.Properties.URL
	c := chartRedisURL{pattern: regexp.MustCompile(u.Pattern)}
	for _, p := range u.Not.AnyOf {
		c.refused = append(c.refused, regexp.MustCompile(p.Pattern))
	}
	return c
}

// TestTheChartRefusesARedisPassword: redis.url is a plain value, stored in
// the Helm release and rendered into the pod spec, so the chart's schema
// refuses a URL that carries a password, in its user info or as a
// password query parameter (docs/helm.md, "Secrets"); a user name alone
// is no secret and passes. Every URL the chart accepts and the service
// parses gives the client no password.
func TestTheChartRefusesARedisPassword(t *testing.T) {
	chart := readChartRedisURL(t)
	for _, tc := range []struct {
		url    string
		accept bool
	}{
		{"", true},
		{"redis://r:6379/0", true},
		{"rediss://cache.internal:6380/0", true},
		{"redis://app@r:6379/0", true},
		{"rediss://r:6379/0?client_name=api&db=1", true},
		{"redis+cluster://a:6379,b:6379", true},
		{"redis+cluster://app@a:6379,b:6379", true},
		{"redis://r:6379/0#password=x", true}, // a fragment, not a query
		{"redis://:s3cret@r:6379/0", false},
		{"redis://app:s3cret@r:6379/0", false},
		{"redis://app:@r:6379/0", false}, // an empty password is still one given in values
		{"redis://a@b:s3cret@r:6379/0", false},
		{"rediss://:s3cret@r", false},
		{"redis+cluster://app:s3cret@a:6379,b:6379", false},
		{"rediss+cluster://:s3cret@a:6379", false},
		{"redis://r:6379/0?password=s3cret", false},
		{"redis://r:6379/0?db=1&password=s3cret", false},
		{"redis://r?password=", false},
		{"http://r:6379/0", false},
	} {
		if got := chart.accepts(tc.url); got != tc.accept {
			t.Errorf("%q: the chart accepts %v, want %v", tc.url, got, tc.accept)
		}
		if tc.url == "" || !chart.accepts(tc.url) {
			continue
		}
		target, err := config.ParseRedisURL(tc.url, false)
		if err != nil {
			t.Errorf("%q: the chart accepts it, the service refuses it: %v", tc.url, err)
			continue
		}
		if target.Single != nil && target.Single.Password != "" || target.Cluster != nil && target.Cluster.Password != "" {
			t.Errorf("%q: the chart accepts a URL that gives the client a password", tc.url)
		}
	}
}
