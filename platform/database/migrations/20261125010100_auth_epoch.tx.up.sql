-- The authentication epoch (tenancy.Authenticator, docs/decisions.md "Keys
-- and authentication"): one counter, raised in the same transaction as any
-- change to what a cached key lookup holds (a key created, revoked, deleted,
-- rescoped or re-expired; an organization created or deleted, its rate limit,
-- stock guard mode or sandbox changed), so it changes exactly when such a
-- change commits. A pod reads it at most once per cache TTL and keeps its
-- cached lookups while it has not moved, instead of looking every key up
-- again each TTL. last_used_at, written off the request path, is not among
-- the columns and does not move it. Statement-level triggers: one raise per
-- statement, however many rows it touched.
CREATE TABLE auth_epoch (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    epoch     bigint NOT NULL
);
INSERT INTO auth_epoch (epoch) VALUES (0);

CREATE FUNCTION raise_auth_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE auth_epoch SET epoch = epoch + 1;
    RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_raise_auth_epoch
    AFTER INSERT OR DELETE OR UPDATE OF organization_id, prefix, hash, scopes, mode, revoked_at, expires_at
    ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION raise_auth_epoch();
CREATE TRIGGER organizations_raise_auth_epoch
    AFTER INSERT OR DELETE OR UPDATE OF stock_guard_mode, rate_limit_per_window, sandbox_of
    ON organizations FOR EACH STATEMENT EXECUTE FUNCTION raise_auth_epoch();
