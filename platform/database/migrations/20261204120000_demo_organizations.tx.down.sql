DROP TABLE demo_organizations;
