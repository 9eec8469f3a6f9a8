DROP TRIGGER organizations_raise_auth_epoch ON organizations;
DROP TRIGGER api_keys_raise_auth_epoch ON api_keys;
DROP FUNCTION raise_auth_epoch();
DROP TABLE auth_epoch;
