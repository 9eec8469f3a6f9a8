package telemetry

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// otlpHeaderVars are the variables the OTLP exporters read extra request
// headers from: the general list and each signal's own. Their values are
// usually a tracing vendor's credential (x-honeycomb-team=…,
// Authorization=Bearer …), so nothing here ever repeats one: a problem is
// said by the header's name, or by its position when the name itself may
// hold the value (a pair without '=', a name that is no header name).
var otlpHeaderVars = []string{
	"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
}

// headerPair is one entry of a header list as the SDK reads it: raw is the
// entry as written, rawValue the text after its first '=', value that text
// percent-decoded and trimmed (valid only when problem is "").
type headerPair struct {
	raw, key, rawValue, value string
	problem                   string
}

// parseHeaderList reads v as the OTLP exporters do (their internal
// envconfig's stringToHeader): the whole value trimmed, empty meaning
// unset; entries split on ','; each a name, '=' (the first one), and a
// value; the name trimmed and an HTTP token; the value percent-decoded
// (url.PathUnescape) and then trimmed. The SDK logs an entry it cannot read
// (the entry, name or value included) and drops it; here each such entry
// gets a problem that names it by position (1-based) or, when the name is
// sound, by name.
func parseHeaderList(v string) []headerPair {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	entries := strings.Split(v, ",")
	pairs := make([]headerPair, 0, len(entries))
	for i, raw := range entries {
		p := headerPair{raw: raw}
		n, val, found := strings.Cut(raw, "=")
		p.key, p.rawValue = strings.TrimSpace(n), val
		switch {
		case strings.TrimSpace(raw) == "":
			p.problem = fmt.Sprintf("entry %d of %d is empty (a stray comma)", i+1, len(entries))
		case !found:
			p.problem = fmt.Sprintf("entry %d of %d has no '=' (write name=value, not name: value)", i+1, len(entries))
		case !isHeaderName(p.key):
			p.problem = fmt.Sprintf("entry %d of %d: the text before '=' is not a header name", i+1, len(entries))
		default:
			decoded, err := url.PathUnescape(val)
			if err != nil {
				p.problem = fmt.Sprintf("header %s (entry %d of %d): the value is not percent-encoded text (write a literal %% as %%25)", p.key, i+1, len(entries))
				break
			}
			p.value = strings.TrimSpace(decoded)
		}
		pairs = append(pairs, p)
	}
	return pairs
}

// isHeaderName reports whether s is an HTTP field name (RFC 9110 token),
// as the SDK requires of a header list's names.
func isHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("!#$%&'*+-.^_`|~", c):
		default:
			return false
		}
	}
	return true
}

// checkHeaderLists says, for each header variable, which entries the SDK
// would log and drop. The message never carries a value.
func checkHeaderLists(getenv func(string) string) []error {
	var errs []error
	for _, name := range otlpHeaderVars {
		for _, p := range parseHeaderList(getenv(name)) {
			if p.problem != "" {
				errs = append(errs, fmt.Errorf("%s: %s", name, p.problem))
			}
		}
	}
	return errs
}

// minRedacted is the length under which a header's text is not redacted
// from the SDK's log lines: shorter values are not credentials (a tenant
// number, "1"), and replacing them wherever they occur would take the
// digits out of every address the line names.
const minRedacted = 4

// headerSecrets is every text of the header variables that the SDK could
// write into a log line and that may be a credential: each value as
// written and decoded, every entry the SDK cannot read, and every name
// that is no header name (it may hold the value: "Authorization: Bearer
// abc=" has its '=' inside the token). Longest first, so that a
// text containing another is replaced whole.
func headerSecrets(getenv func(string) string) []string {
	seen := map[string]bool{}
	var secrets []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if len(s) >= minRedacted && !seen[s] {
			seen[s] = true
			secrets = append(secrets, s)
		}
	}
	for _, name := range otlpHeaderVars {
		for _, p := range parseHeaderList(getenv(name)) {
			add(p.rawValue)
			add(p.value)
			if p.problem != "" {
				add(p.raw)
			}
			if !isHeaderName(p.key) {
				add(p.key)
			}
		}
	}
	sort.SliceStable(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	return secrets
}
