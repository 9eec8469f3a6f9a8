package requestlog

// Partitions lists request_logs' partitions by name (for the tests of
// package requestlog_test).
var Partitions = partitions

// CopyColumns are the columns Copy writes, in order.
var CopyColumns = copyColumns
