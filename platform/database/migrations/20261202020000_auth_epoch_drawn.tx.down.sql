-- Back to migration 20261125010100's raise: one more than before.
CREATE OR REPLACE FUNCTION raise_auth_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE auth_epoch SET epoch = epoch + 1;
    RETURN NULL;
END
$$;
