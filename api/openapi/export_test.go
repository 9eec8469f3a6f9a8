package openapi

// YAML returns the document as authored (for the tests of package
// openapi_test).
func YAML() []byte { return source }
