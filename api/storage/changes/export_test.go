package changes

// PurgeInBatchesOf is Purge with batches of n.
var PurgeInBatchesOf = purge
