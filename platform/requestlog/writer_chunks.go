package requestlog

// The Writer's buffer is a list of chunks of records: a flush takes them
// all (drain), and the emptied chunks are kept for reuse, as many as the
// recent flushes used.

// chunkSize is the most records of a chunk: the unit in which the buffer
// grows and is reused, smaller than a flush so that a quiet writer holds
// little memory.
const chunkSize = 1000

// maxFreeChunks bounds the emptied chunks kept for reuse: 5,000 records'
// worth, a quarter of a default flush. The rest of a flush's chunks are
// made anew (a megabyte every few seconds at catbench's detail load, little
// beside the requests' own allocations), so that a quiet writer gives a
// busy period's memory back within a few flushes.
const maxFreeChunks = 5

// newChunk returns an empty chunk, reused when one is free (w.mu held).
func (w *Writer) newChunk() []Record {
	if n := len(w.free); n > 0 {
		c := w.free[n-1]
		w.free = w.free[:n-1]
		return c
	}
	return make([]Record, 0, min(chunkSize, w.cfg.Batch, w.cfg.Buffer))
}

// drain writes every record buffered now in one statement; final makes
// later Adds drop their record as closed.
func (w *Writer) drain(final bool) {
	w.mu.Lock()
	chunks := w.pending
	w.pending, w.count = nil, 0
	w.ended = final
	w.mu.Unlock()
	if len(chunks) > 0 {
		w.write(chunks)
	} else {
		w.buf.b, w.buf.order = w.buf.b[:0], w.buf.order[:0]
	}
	w.buf.trim()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.keep = keepChunks(w.keep, len(chunks))
	w.free = recycle(w.free, chunks, w.keep)
}

// keepChunks is how many emptied chunks the free list holds after a flush
// that used used of them, when the flush before kept last: what this one
// used, or half of last, whichever is more (at least one, at most
// maxFreeChunks). A steady rate keeps what its busy flushes use, and a
// quiet period gives a busy period's chunks to the garbage collector within
// a few flushes. Kept for good, they held a backlog's memory, which the
// collector's heap goal, twice the live heap, doubled in the pod's RSS
// (bench/README.md, "Where the targets stand").
func keepChunks(last, used int) int {
	return min(max(used, last/2, 1), maxFreeChunks)
}

// recycle returns the free list after a flush that emptied used, holding
// at most keep chunks.
func recycle(free, used [][]Record, keep int) [][]Record {
	for _, c := range used {
		if len(free) >= keep {
			break
		}
		clear(c)
		free = append(free, c[:0])
	}
	if len(free) > keep {
		clear(free[keep:])
		free = free[:keep]
	}
	return free
}
