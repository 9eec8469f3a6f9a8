package database

// CurrentCluster exposes currentCluster to the test of a role that may not
// read the cluster's identifier.
var CurrentCluster = currentCluster

// SequencesBehind exposes sequencesBehind to the test of a role that may
// not read the sequences.
var SequencesBehind = sequencesBehind
