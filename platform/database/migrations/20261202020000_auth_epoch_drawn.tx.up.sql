-- Each raise of the authentication epoch draws a new value instead of
-- adding one (docs/decisions.md, "Keys and authentication"). A pod reuses
-- a cached key lookup past its TTL while auth_epoch holds the value the
-- lookup read. Counted up, one value could stand for two states of the
-- keys: a database that loses commits (restored from a backup, failed over
-- to a replica that was behind) goes back from N+1 to N, and its next
-- change, say a revocation, raises it to N+1 again, the value the pods had
-- cached the key under before the loss, so they went on accepting the
-- revoked key for up to five minutes. A drawn value repeats one that stood
-- before with a chance below 2^-52 per change. random() is below 1, so the
-- product stays below 2^62 and fits a bigint.
CREATE OR REPLACE FUNCTION raise_auth_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE auth_epoch SET epoch = (random() * 4611686018427387904)::bigint;
    RETURN NULL;
END
$$;
