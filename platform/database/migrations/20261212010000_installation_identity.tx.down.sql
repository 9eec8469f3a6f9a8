DROP TABLE installation_identity;
