// Package layering holds no code: its tests enforce the import rules between
// the layers described in docs/architecture.md, by reading what each package
// of the module links (go list -deps), and keep SQL in the storage layer, by
// reading the source of the packages under api/ and cmd/ for bun models and
// queries.
package layering
