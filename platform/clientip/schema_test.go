package clientip

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"regexp"
	"strings"
	"testing"
)

// chartPattern is the Helm chart's pattern for one config.trustedProxies
// entry (docs/helm.md), which refuses at install what Parse would refuse at
// start: the two must agree, or a typo gets past helm and the pod crashes.
func chartPattern(t *testing.T) *regexp.Regexp {
	t.Helper()
	raw, err := os.ReadFile("../../charts/eventapi/values.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties struct {
			Config struct {
				Properties struct {
					TrustedProxies struct {
						Items struct {
							Pattern string `json:"pattern"`
						} `json:"items"`
					} `json:"trustedProxies"`
				} `json:"properties"`
			} `json:"config"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	return regexp.MustCompile(schema.Properties.Config.Properties.TrustedProxies.Items.Pattern)
}

// TestTheChartAcceptsWhatParseAccepts: the chart's pattern and Parse agree
// on every entry of a corpus of addresses and ranges in every textual form
// (full, compressed, IPv4 inside IPv6, upper case) and of near misses made
// from them. The corpus holds IPv6 text such as ":::", which a looser
// pattern lets through.
// Zones (fe80::1%eth0) are left out: no proxy is named by one, and the
// pattern refuses them.
func TestTheChartAcceptsWhatParseAccepts(t *testing.T) {
	re := chartPattern(t)
	for _, s := range trustedProxyCorpus() {
		_, err := Parse(s)
		if strings.Contains(s, ",") || strings.Contains(s, "%") || strings.TrimSpace(s) != s {
			continue // Parse splits lists and trims; the chart takes one entry per item
		}
		if got, want := re.MatchString(s), err == nil; got != want {
			t.Errorf("%q: the chart's pattern matches %v, Parse accepts %v (%v)", s, got, want, err)
		}
	}
}

func trustedProxyCorpus() []string {
	r := rand.New(rand.NewPCG(1, 2))
	out := []string{"", "::", ":::", "::1", "1::", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8",
		"1:2:3:4:5:6:7:8:9", "1::2::3", "::ffff:10.0.0.1", "::10.0.0.1", "1:2:3:4:5:6:10.0.0.1", "1:2:3:4:5:6:7:10.0.0.1",
		"1::10.0.0.1", "fe80::/10", "fe80::/129", "fe80::/012", "10.0.0.0/08", "10.0.0.0/32", "10.0.0.0/33",
		"0.0.0.0/0", "01.2.3.4", "1.2.3", "1.2.3.4.5", "256.1.1.1", "12345::", "g::", "::ffff:256.1.1.1", "1.2.3.4/",
		"/8", "::/0", "::/128", "::1/", "[::1]", "1.2.3.4 "}
	for range 3000 {
		var b [16]byte
		for i := range b {
			if r.IntN(3) > 0 { // runs of zero groups, so that :: appears
				b[i] = byte(r.UintN(256))
			}
		}
		a6 := netip.AddrFrom16(b)
		a4 := netip.AddrFrom4([4]byte{b[0], b[1], b[2], b[3]})
		forms := []string{a6.String(), a6.StringExpanded(), strings.ToUpper(a6.String()), a4.String(),
			netip.AddrFrom16([16]byte{10: 0xff, 11: 0xff, 12: b[0], 13: b[1], 14: b[2], 15: b[3]}).String(),
			v4Tail(a6), fmt.Sprintf("%s/%d", a6, r.IntN(140)), fmt.Sprintf("%s/%d", a4, r.IntN(40))}
		for _, f := range forms {
			out = append(out, f, mutate(r, f))
		}
	}
	return out
}

// v4Tail writes a's last 32 bits as an IPv4 address: 1:2::3:4.5.6.7.
func v4Tail(a netip.Addr) string {
	b := a.As16()
	head := netip.AddrFrom16([16]byte{b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], 0, 0, 0, 1}).String()
	return strings.TrimSuffix(head, ":1") + ":" + netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}).String()
}

// mutate inserts, deletes or replaces one character of s with one of those
// addresses are made of.
func mutate(r *rand.Rand, s string) string {
	const alphabet = "0123456789abcdefABCDEFg:./"
	c := string(alphabet[r.IntN(len(alphabet))])
	i := r.IntN(len(s) + 1)
	switch r.IntN(3) {
	case 0:
		return s[:i] + c + s[i:]
	case 1:
		if i < len(s) {
			return s[:i] + s[i+1:]
		}
	}
	if i < len(s) {
		return s[:i] + c + s[i+1:]
	}
	return s + c
}
