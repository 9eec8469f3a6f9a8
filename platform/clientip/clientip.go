// Package clientip finds the address of the client that sent a request
// through the proxies the operator trusts (docs/observability.md, "Client
// addresses").
//
// Behind a load balancer the socket's peer is the balancer. A proxy appends
// the address it received the request from to X-Forwarded-For, so the
// header's entries are, from the right, what each trusted proxy saw, and
// further left whatever the client itself wrote there. The client is
// therefore the rightmost entry that is not a trusted proxy. Taking the
// leftmost entry, as Fiber's ProxyHeader does, would record an address any
// client can choose.
package clientip

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"
)

// HeaderForwardedFor is the header proxies append the client's address to.
const HeaderForwardedFor = "X-Forwarded-For"

// Trusted is the set of proxies whose X-Forwarded-For entries are believed.
// The zero value trusts none: the client is the socket's peer.
type Trusted []netip.Prefix

// Parse reads a comma-separated list of CIDR ranges and single addresses
// ("10.0.0.0/8, 192.168.1.7, fd00::/8"); an empty string trusts none.
func Parse(s string) (Trusted, error) {
	var t Trusted
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if strings.Contains(f, "/") {
			p, err := netip.ParsePrefix(f)
			if err != nil {
				return nil, fmt.Errorf("%q is not a CIDR range such as 10.0.0.0/8", f)
			}
			if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 { // ::ffff:10.0.0.0/104 is 10.0.0.0/8
				p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
			}
			t = append(t, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP address or CIDR range", f)
		}
		a = a.Unmap()
		t = append(t, netip.PrefixFrom(a, a.BitLen()))
	}
	return t, nil
}

// trusts reports whether a is one of the trusted proxies.
func (t Trusted) trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Of returns the client's address for a request whose socket peer is peer
// and whose X-Forwarded-For header lines are forwardedFor, in the order
// received. When peer is not a trusted proxy, the header is ignored (anyone
// can send it) and peer is the client. Otherwise the entries are read from
// the right, past the trusted proxies, and the first other address is the
// client. An entry that is not an address stops the walk at the last
// trusted hop before it, as does a header that holds trusted proxies only:
// that hop is the nearest address to the client the proxies vouch for.
func (t Trusted) Of(peer netip.Addr, forwardedFor [][]byte) netip.Addr {
	peer = peer.Unmap().WithZone("")
	if len(t) == 0 || !t.trusts(peer) {
		return peer
	}
	hop := peer
	for i := len(forwardedFor) - 1; i >= 0; i-- {
		line := bytes.TrimSpace(forwardedFor[i])
		for len(line) > 0 {
			var entry []byte
			if j := bytes.LastIndexByte(line, ','); j >= 0 {
				line, entry = line[:j], line[j+1:]
			} else {
				line, entry = nil, line
			}
			a, ok := parseEntry(entry)
			if !ok {
				return hop
			}
			if !t.trusts(a) {
				return a
			}
			hop = a
		}
	}
	return hop
}

// parseEntry reads one X-Forwarded-For entry: an address, optionally with a
// port or in brackets ("203.0.113.7:4711", "[2001:db8::1]:4711",
// "[2001:db8::1]"), as some proxies write. A zone names an interface of the
// proxy that wrote it, not part of the client's address, and is dropped.
func parseEntry(b []byte) (netip.Addr, bool) {
	s := strings.TrimSpace(string(b))
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone(""), true
	}
	return netip.Addr{}, false
}
