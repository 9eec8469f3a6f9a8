// Package controller reconciles the eventapi.io custom resources against the
// eventapi PostgreSQL database, through the same tenancy functions the CLI
// uses: ApiKey (create, rescope, rotate and revoke keys; the full key lives
// only in a Secret owned by the ApiKey) and SandboxOrganization (create,
// seed, rename and delete the sandbox of a parent organization).
package controller
