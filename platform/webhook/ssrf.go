package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
)

// ErrAddressNotAllowed is returned when a host resolves to an address that
// is not public (see Public) and private addresses are not allowed.
var ErrAddressNotAllowed = errors.New("webhook: address is not public")

// special are the ranges, beyond what netip classifies, that are not
// reachable public unicast addresses (IANA special-purpose registries).
var special = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",       // "this network"
		"100.64.0.0/10",   // carrier-grade NAT (RFC 6598)
		"192.0.0.0/24",    // IETF protocol assignments
		"192.0.2.0/24",    // TEST-NET-1
		"198.18.0.0/15",   // benchmarking
		"198.51.100.0/24", // TEST-NET-2
		"203.0.113.0/24",  // TEST-NET-3
		"240.0.0.0/4",     // reserved, and the broadcast address
		"64:ff9b::/96",    // NAT64: may embed a private IPv4 address
		"64:ff9b:1::/48",  // local-use NAT64
		"100::/64",        // discard-only
		"2001:db8::/32",   // documentation
		"2002::/16",       // 6to4: may embed a private IPv4 address
		"2001::/32",       // Teredo
		"fec0::/10",       // deprecated site-local
		"::/128",          // unspecified
		"::/96",           // IPv4-compatible (deprecated): ::127.0.0.1
		"::ffff:0:0:0/96", // IPv4-translated (SIIT): ::ffff:0:127.0.0.1
		"192.88.99.0/24",  // 6to4 relay anycast (deprecated)
		"3fff::/20",       // documentation (RFC 9637)
		"2001:2::/48",     // benchmarking (RFC 5180)
		"2001:10::/28",    // ORCHID (deprecated, RFC 4843)
		"5f00::/16",       // segment routing SIDs (RFC 9602)
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// Public reports whether a is a public unicast address: not loopback,
// private (RFC 1918, IPv6 ULA), link-local, multicast, unspecified, CGNAT,
// documentation, benchmarking, reserved or a translation range that could
// embed one of those. IPv4-mapped IPv6 addresses are judged as IPv4.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() ||
		a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range special {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// URLIssue is why an endpoint URL is refused, in words for the API caller.
type URLIssue string

// CheckURL validates an endpoint URL: absolute https (http too when
// allowPrivate), a valid RFC 3986 URI as written, a host (no IPv6 zone), a
// port from 1 to 65535 if any, no user information, no fragment, and every
// address the host resolves to public unless allowPrivate. It returns ""
// when the URL is acceptable.
func CheckURL(ctx context.Context, raw string, allowPrivate bool, r *net.Resolver) URLIssue {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return "must be an absolute https URL"
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowPrivate:
	case allowPrivate:
		return "must use https or http"
	default:
		return "must use https"
	}
	if u.User != nil {
		return "must not contain user information"
	}
	if !uriSyntax(raw) {
		return "must be a URI as RFC 3986 writes it: percent-encode spaces, non-ASCII and other characters it does not allow, and give a host name in its ASCII (xn--) form"
	}
	// An empty fragment ("…/#") parses to Fragment "", so the raw text is
	// what tells; '#' has no other place in a URI (uriSyntax).
	if strings.Contains(raw, "#") {
		return "must not contain a fragment"
	}
	// url.Parse accepts a zone ("[fe80::1%25eth0]", RFC 6874), which RFC
	// 3986 has no room for and which means nothing to another host.
	if strings.HasPrefix(u.Host, "[") && strings.Contains(u.Host, "%") {
		return "must not name an IPv6 zone"
	}
	host := u.Hostname()
	if host == "" {
		return "must name a host"
	}
	if !validPort(u) {
		return "must have a port from 1 to 65535, or none"
	}
	if allowPrivate {
		return ""
	}
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		if !Public(a) {
			return "must point at a public address (private, loopback, link-local and other special addresses are refused)"
		}
		return ""
	}
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return UnresolvedOrPrivate
	}
	for _, a := range addrs {
		if !Public(a) {
			return UnresolvedOrPrivate
		}
	}
	return ""
}

// UnresolvedOrPrivate is the one issue of a host name that does not resolve
// and of one that resolves to an address that is not public: told apart,
// they let a customer find which names the deployment's own resolver knows
// (redis.<namespace>.svc.cluster.local), one registration each.
const UnresolvedOrPrivate = "host must resolve, and only to public addresses (private, loopback, link-local and other special addresses are refused)"

// uriSyntax reports whether raw, as written, is made of the characters a
// URI may hold (RFC 3986 section 2: unreserved and reserved characters, and
// '%' followed by two hex digits) with '[' and ']' only around an IP
// literal host, so that the stored URL is what the OpenAPI document's
// `format: uri` promises (docs/webhooks.md, "Security"). url.Parse takes
// spaces, non-ASCII text and brackets in a path as they come.
func uriSyntax(raw string) bool {
	for i := 0; i < len(raw); i++ {
		switch b := raw[i]; {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		case strings.IndexByte("-._~:/?#[]@!$&'()*+,;=", b) >= 0:
		case b == '%':
			if i+2 >= len(raw) || !isHex(raw[i+1]) || !isHex(raw[i+2]) {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	// The authority runs from "//" to the first '/', '?' or '#'; brackets
	// may only enclose a host at its start ("[v6]" or "[v6]:port"; CheckURL
	// has refused user information), and nowhere after it.
	_, rest, _ := strings.Cut(raw, "//")
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, after := rest[:end], rest[end:]
	if strings.ContainsAny(after, "[]") {
		return false
	}
	if strings.ContainsAny(authority, "[]") {
		rb := strings.IndexByte(authority, ']')
		return authority[0] == '[' && strings.Count(authority, "[") == 1 && strings.Count(authority, "]") == 1 &&
			(rb == len(authority)-1 || authority[rb+1] == ':')
	}
	return true
}

func isHex(b byte) bool {
	return '0' <= b && b <= '9' || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F'
}

// validPort reports whether u has no port or a decimal port from 1 to
// 65535. url.Parse accepts any digits after the colon, and none ("host:"),
// which Port reports as no port: a trailing colon counts as a port, empty.
func validPort(u *url.URL) bool {
	p := u.Port()
	if p == "" && !strings.HasSuffix(u.Host, ":") {
		return true
	}
	n, err := strconv.ParseUint(p, 10, 16)
	return err == nil && n > 0
}

// Control is a net.Dialer Control function that refuses to connect to an
// address that is not public, so that a host re-pointed at a private
// address after registration (DNS rebinding) is refused at delivery time.
func Control(allowPrivate bool) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		if allowPrivate {
			return nil
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s", ErrAddressNotAllowed, address)
		}
		if !Public(ap.Addr()) {
			return fmt.Errorf("%w: %s", ErrAddressNotAllowed, ap.Addr())
		}
		return nil
	}
}
