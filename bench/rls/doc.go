// Package rls measures what PostgreSQL row-level security would cost the
// request path (issue 10: "as a backstop if it fits the performance goal").
//
// A scratch database gets RLS on clients with the policy
// organization_id = current_setting('eventapi.org', true)::uuid and a
// non-owner role the policy applies to. The policy needs the organization in
// a setting that lasts one transaction, so each request shape (a detail by
// id, a first list page) is measured three ways on the app's own connection
// settings (database.Open):
//
//   - plain: today's query, one round trip, organization filter in the SQL;
//   - rls_tx: BEGIN, set_config(organization and role, local), the same
//     query, COMMIT: four round trips, what bun's RunInTx would send;
//   - rls_pipeline: set_config and the query pipelined in one implicit
//     transaction (a pgx batch on the raw connection): one round trip, but
//     outside database/sql, so bun cannot send it.
//
// The tests check that the policy really filters in both RLS shapes (another
// organization's row is invisible even without the SQL filter), so the
// timings compare the real thing. docs/architecture.md ("Row-level
// security") has the numbers and the decision.
//
// Run: go test -run '^$' -bench . -benchmem ./bench/rls/
package rls
