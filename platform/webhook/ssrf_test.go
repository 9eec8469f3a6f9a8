package webhook

import (
	"context"
	"errors"
	"net/netip"
	"testing"
)

func TestPublic(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		public bool
	}{
		{"8.8.8.8", true},
		{"1.1.1.1", true},
		{"2606:4700:4700::1111", true},
		{"127.0.0.1", false},
		{"127.255.0.9", false},
		{"::1", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"192.168.1.1", false},
		{"169.254.169.254", false}, // cloud metadata
		{"fe80::1", false},
		{"100.64.0.1", false}, // CGNAT
		{"100.127.255.254", false},
		{"224.0.0.1", false},
		{"239.255.255.250", false},
		{"ff02::1", false},
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"::", false},
		{"::7f00:1", false},         // ::127.0.0.1, IPv4-compatible
		{"::8.8.8.8", false},        // IPv4-compatible is deprecated, whatever it embeds
		{"::ffff:0:7f00:1", false},  // IPv4-translated 127.0.0.1
		{"192.88.99.1", false},      // 6to4 relay anycast
		{"3fff::1", false},          // documentation
		{"2001:2::1", false},        // benchmarking
		{"2001:2:0:ffff::1", false}, // benchmarking, end of the /48
		{"2001:3::1", true},         // AMT, beside benchmarking: public
		{"2001:10::1", false},       // ORCHID
		{"5f00::1", false},          // SRv6 SIDs
		{"::ffff:8.8.8.8", true},    // IPv4-mapped public: judged as 8.8.8.8
		{"2a00:1450:4001::1", true}, // an ordinary global address
		{"fc00::1", false},          // ULA
		{"fd12:3456::1", false},
		{"::ffff:127.0.0.1", false}, // IPv4-mapped loopback
		{"::ffff:10.0.0.1", false},
		{"::ffff:8.8.8.8", true},
		{"64:ff9b::a00:1", false}, // NAT64 of 10.0.0.1
		{"2002:a00:1::1", false},  // 6to4 of 10.0.0.1
		{"192.0.2.10", false},
		{"198.18.0.1", false},
		{"203.0.113.5", false},
		{"255.255.255.255", false},
		{"240.0.0.1", false},
		{"2001:db8::1", false},
		{"fec0::1", false},
	} {
		if got := Public(netip.MustParseAddr(tc.addr)); got != tc.public {
			t.Errorf("Public(%s) = %v, want %v", tc.addr, got, tc.public)
		}
	}
}

// TestUnresolvedAndPrivateNamesLookAlike: a name that resolves to a
// loopback address and one that does not resolve get the same issue, so a
// registration cannot tell which names the service's resolver knows.
func TestUnresolvedAndPrivateNamesLookAlike(t *testing.T) {
	ctx := context.Background()
	private := CheckURL(ctx, "https://localhost/hook", false, nil)
	unknown := CheckURL(ctx, "https://no-such-host.invalid/hook", false, nil)
	if private != UnresolvedOrPrivate || unknown != UnresolvedOrPrivate {
		t.Fatalf("localhost: %q; an unknown name: %q; want both %q", private, unknown, UnresolvedOrPrivate)
	}
}

func TestCheckURL(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		url          string
		allowPrivate bool
		ok           bool
	}{
		{"https://8.8.8.8/hook", false, true},
		{"https://[2606:4700:4700::1111]/hook", false, true},
		{"http://8.8.8.8/hook", false, false}, // https only
		{"ftp://8.8.8.8/", false, false},
		{"https://127.0.0.1/hook", false, false},
		{"https://localhost/hook", false, false}, // resolves to loopback
		{"https://[::1]:8443/hook", false, false},
		{"https://169.254.169.254/latest/meta-data", false, false},
		{"https://10.0.0.5/", false, false},
		{"https://100.64.1.1/", false, false},
		{"https://[fd00::1]/", false, false},
		{"https://[::ffff:192.168.0.1]/", false, false},
		{"https://0.0.0.0/", false, false},
		{"https://user:pw@8.8.8.8/", false, false},
		{"https://8.8.8.8/#frag", false, false},
		{"https://no-such-host.invalid/", false, false},
		{"/relative", false, false},
		{"https:///nohost", false, false},
		{"not a url", false, false},
		// A port, when present, is a decimal number from 1 to 65535.
		{"https://8.8.8.8:443/hook", false, true},
		{"https://8.8.8.8:8443/hook", false, true},
		{"https://[2606:4700:4700::1111]:8443/hook", false, true},
		{"https://8.8.8.8:0/hook", false, false},
		{"https://8.8.8.8:65536/hook", false, false},
		{"https://8.8.8.8:99999/hook", false, false},
		{"https://8.8.8.8:abc/hook", false, false},
		{"https://8.8.8.8:/hook", false, false},
		{"https://[2606:4700:4700::1111]:/hook", false, false},
		{"https://[2606:4700:4700::1111]:0/hook", false, false},
		// Development and tests: plain http and private addresses.
		{"http://127.0.0.1:8080/hook", true, true},
		{"https://localhost/hook", true, true},
		{"ftp://127.0.0.1/", true, false},
		{"https://127.0.0.1:65535/hook", true, true},
		{"https://127.0.0.1:99999/x", true, false},
		{"http://127.0.0.1:0/hook", true, false},
		{"https://localhost:/hook", true, false},
		// Written as RFC 3986 has it, with or without ALLOW_PRIVATE.
		{"https://8.8.8.8/a%20b?q=%C3%A9&r=1;s=(x)!*'$,~", false, true},
		{"https://8.8.8.8/", false, true},
		{"https://8.8.8.8?q=1", false, true},
		{"https://8.8.8.8/#", false, false},
		{"https://8.8.8.8/a b", false, false},
		{"https://[2606:4700:4700::1111%25x]/", false, false},
		{"https://127.0.0.1/#", true, false},
		{"https://127.0.0.1/a b", true, false},
		{"https://[fe80::1%25eth0]:8080/", true, false},
		{"http://xn--bcher-kva.example/", true, true},
		{"http://bücher.example/", true, false},
	} {
		issue := CheckURL(ctx, tc.url, tc.allowPrivate, nil)
		if (issue == "") != tc.ok {
			t.Errorf("CheckURL(%q, allowPrivate=%v) = %q, want ok=%v", tc.url, tc.allowPrivate, issue, tc.ok)
		}
	}
}

func TestControlRefusesPrivateAtDial(t *testing.T) {
	for _, tc := range []struct {
		address      string
		allowPrivate bool
		ok           bool
	}{
		{"8.8.8.8:443", false, true},
		{"127.0.0.1:443", false, false},
		{"[::1]:443", false, false},
		{"10.0.0.1:80", false, false},
		{"169.254.169.254:80", false, false},
		{"127.0.0.1:443", true, true},
	} {
		err := Control(tc.allowPrivate)("tcp", tc.address, nil)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrAddressNotAllowed)) {
			t.Errorf("Control(%v)(%s) = %v, want ok=%v", tc.allowPrivate, tc.address, err, tc.ok)
		}
	}
}

// TestCheckURLSyntax: what CheckURL says of a URL that is not a URI as RFC
// 3986 writes it, of a fragment (an empty one too) and of an IPv6 zone,
// before any address rule (ALLOW_PRIVATE lifts those, not these).
func TestCheckURLSyntax(t *testing.T) {
	const (
		notURI   = "must be a URI as RFC 3986 writes it: percent-encode spaces, non-ASCII and other characters it does not allow, and give a host name in its ASCII (xn--) form"
		fragment = "must not contain a fragment"
		zone     = "must not name an IPv6 zone"
		parse    = "must be an absolute https URL"
	)
	for _, tc := range []struct {
		url  string
		want URLIssue
	}{
		{"https://1.1.1.1/a%20b", ""},
		{"https://1.1.1.1/%7e%7E", ""},
		{"https://[2606:4700:4700::1111]:8443/a?b=[", notURI},
		{"https://1.1.1.1/#", fragment},
		{"https://1.1.1.1/#frag", fragment},
		{"https://1.1.1.1/?q#", fragment},
		{"https://1.1.1.1#", fragment},
		{"https://1.1.1.1/a b", notURI},
		{"https://1.1.1.1/ééé", notURI},
		{"https://1.1.1.1/?q=é", notURI},
		{"https://bücher.example/", notURI},
		{"https://1.1.1.1/?q=%zz", notURI},
		{"https://1.1.1.1/?q=100%", notURI},
		{"https://1.1.1.1/a\\b", notURI},
		{"https://1.1.1.1/{x}", notURI},
		{"https://1.1.1.1/a|b^c`d", notURI},
		{`https://1.1.1.1/"x"`, notURI},
		{"https://1.1.1.1/<x>", notURI},
		{"https://1.1.1.1/a[b]", notURI},
		{"https://1.1.1.1/?a[]=1", notURI},
		{"https://a]b.example/", notURI}, // url.Parse takes it
		// Refused by url.Parse already, in the parser's words.
		{"https://1.1.1.1/a\tb", parse},
		{"https://1.1.1.1/a%2", parse},
		{"https://a[b]c.example/", parse},
		{"https://[2606:4700:4700::1111]x/", parse},
		{"https://[2606:4700:4700::1111%25x]/", zone},
		{"https://[2606:4700:4700::1111%25eth0]:443/", zone},
		{"https://[fe80::1%25en0]/", zone},
	} {
		for _, allowPrivate := range []bool{false, true} {
			if got := CheckURL(context.Background(), tc.url, allowPrivate, nil); got != tc.want {
				t.Errorf("CheckURL(%q, allowPrivate=%v) = %q, want %q", tc.url, allowPrivate, got, tc.want)
			}
		}
	}
}

// TestCheckURLScheme: the refusal of a scheme names the schemes the
// server's setting accepts.
func TestCheckURLScheme(t *testing.T) {
	for _, tc := range []struct {
		url          string
		allowPrivate bool
		want         URLIssue
	}{
		{"https://127.0.0.1/hook", true, ""},
		{"http://127.0.0.1/hook", true, ""},
		{"ftp://127.0.0.1/hook", true, "must use https or http"},
		{"http://8.8.8.8/hook", false, "must use https"},
		{"ftp://8.8.8.8/hook", false, "must use https"},
	} {
		if got := CheckURL(context.Background(), tc.url, tc.allowPrivate, nil); got != tc.want {
			t.Errorf("CheckURL(%q, allowPrivate %v) = %q, want %q", tc.url, tc.allowPrivate, got, tc.want)
		}
	}
}
