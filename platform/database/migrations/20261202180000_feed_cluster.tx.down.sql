DROP TABLE feed_cluster;
