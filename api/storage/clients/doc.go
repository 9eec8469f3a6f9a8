// Package clients stores the clients of an organization: the bun model and its
// organization-scoped queries. It is the reference shape of a stored
// resource: model.go (bun model and JSON shape) and store.go (queries). The
// HTTP side is api/clients.
package clients
