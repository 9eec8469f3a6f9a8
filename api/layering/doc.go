// Package layering holds no code: its test enforces the import rules between
// the layers described in docs/architecture.md, by reading what each package
// of the module links (go list -deps).
package layering
