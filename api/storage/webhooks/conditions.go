package webhooks

// The two conditions on a delivery that the claim (ClaimDue) reads in both
// of its statements. Each takes the delivery's table alias; the SQL they
// return has no placeholders.

// staleDelivery: alias is a pending delivery that a re-enable of its
// endpoint made due whatever its next_attempt_at. It was last written
// before the endpoint's enabled_at (the SQL expression enabledAt), so its
// window predates the re-enable, and it has no live lease (an attempt
// claimed before the re-enable is left to its end). handedBackAt keeps such
// a delivery stale when a claim hands it back unattempted.
func staleDelivery(alias, enabledAt string) string {
	return alias + ".status = 'pending' AND " + alias + ".updated_at < " + enabledAt +
		" AND (" + alias + ".leased_until IS NULL OR " + alias + ".leased_until <= statement_timestamp())"
}

// liveLease: alias is a delivery in flight, a pending delivery whose lease
// has not ended. A claim sets next_attempt_at to the lease's end, and
// Complete and Release clear the lease, so a live lease is never due: the
// condition reads only deliveries that are not due, through the small
// index of leased ones (webhook_deliveries_endpoint_leased_idx).
func liveLease(alias string) string {
	return alias + ".status = 'pending' AND " + alias + ".leased_until IS NOT NULL AND " +
		alias + ".leased_until > statement_timestamp() AND " + alias + ".next_attempt_at > statement_timestamp()"
}
