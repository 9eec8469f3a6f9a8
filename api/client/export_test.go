package client

// ListRecordType exposes listRecordType to the package's external tests.
var ListRecordType = listRecordType

// DeclaredHeaderFormats is declaredHeaders for the package's external
// tests: each declared response header's schema type and format.
func DeclaredHeaderFormats() map[string][2]string {
	out := map[string][2]string{}
	for name, f := range declaredHeaders {
		out[name] = [2]string{f.Type, f.Format}
	}
	return out
}
