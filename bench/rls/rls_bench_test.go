package rls

import (
	"context"
	"testing"
)

// BenchmarkDetail and BenchmarkList run the three shapes in one process on
// the same data, so their ns/op compare directly (the ratio rls_*/plain is
// the cost of the policy's transaction). Serial on purpose: the cost per
// request is latency, round trips included.

func BenchmarkDetail(b *testing.B) {
	f := setup(b)
	ctx := context.Background()
	for _, w := range ways {
		b.Run(w.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				id := f.idsA[i%len(f.idsA)]
				i++
				if n, err := w.run(ctx, f, detailSQL, f.orgA, id); err != nil || n != 1 {
					b.Fatalf("%d rows, %v", n, err)
				}
			}
		})
	}
}

func BenchmarkList(b *testing.B) {
	f := setup(b)
	ctx := context.Background()
	for _, w := range ways {
		b.Run(w.name, func(b *testing.B) {
			for b.Loop() {
				if n, err := w.run(ctx, f, listSQL, f.orgA, [16]byte{}); err != nil || n != 50 {
					b.Fatalf("%d rows, %v", n, err)
				}
			}
		})
	}
}
