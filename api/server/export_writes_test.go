package server

// KeyedWrites exposes keyedWrites to the external tests.
var KeyedWrites = keyedWrites
