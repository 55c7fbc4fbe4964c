package rounds

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Every round runs every case exactly once untraced and once traced, each
// half a permutation of the cases with every group's cases back to back.
func TestOrderIsAPermutationPerHalf(t *testing.T) {
	groups := [][]int{{0, 1, 2}, {3, 4}, {5}, {6, 7, 8, 9}}
	order := Order(7, groups, 20, true, true)
	if len(order) != 20 {
		t.Fatalf("%d rounds, want 20", len(order))
	}
	group := map[int]int{}
	for g, cs := range groups {
		for _, c := range cs {
			group[c] = g
		}
	}
	firstTraced := 0
	for r, slots := range order {
		if len(slots) != 20 {
			t.Fatalf("round %d: %d batches, want 20", r+1, len(slots))
		}
		for h, half := range [][]Slot{slots[:10], slots[10:]} {
			seen := map[int]bool{}
			for i, s := range half {
				if s.Traced != half[0].Traced {
					t.Errorf("round %d half %d mixes traced and untraced", r+1, h)
				}
				if seen[s.Case] {
					t.Errorf("round %d half %d runs case %d twice", r+1, h, s.Case)
				}
				seen[s.Case] = true
				if i > 0 && group[s.Case] != group[half[i-1].Case] && seenGroupBefore(half[:i-1], group, group[s.Case]) {
					t.Errorf("round %d half %d: group %d is split", r+1, h, group[s.Case])
				}
			}
			if len(seen) != 10 {
				t.Errorf("round %d half %d runs %d cases, want 10", r+1, h, len(seen))
			}
		}
		if slots[0].Traced == slots[10].Traced {
			t.Errorf("round %d: both halves traced=%v", r+1, slots[0].Traced)
		}
		if slots[0].Traced {
			firstTraced++
		}
	}
	// The halves' order is random too: 20 coin flips all the same is 2^-19.
	if firstTraced == 0 || firstTraced == 20 {
		t.Errorf("the traced half came first in %d of 20 rounds", firstTraced)
	}
}

func seenGroupBefore(slots []Slot, group map[int]int, g int) bool {
	for _, s := range slots {
		if group[s.Case] == g {
			return true
		}
	}
	return false
}

// The same seed replays the same order; another seed gives another.
func TestOrderSeed(t *testing.T) {
	groups := [][]int{{0, 1, 2, 3}, {4, 5, 6}}
	a, b := Order(42, groups, 10, true, true), Order(42, groups, 10, true, true)
	if !reflect.DeepEqual(a, b) {
		t.Error("seed 42 gave two different orders")
	}
	if reflect.DeepEqual(a, Order(43, groups, 10, true, true)) {
		t.Error("seeds 42 and 43 gave the same order")
	}
	// Throughput only, or traced only: one half a round.
	for _, o := range [][][]Slot{Order(1, groups, 3, true, false), Order(1, groups, 3, false, true)} {
		for _, slots := range o {
			if len(slots) != 7 {
				t.Errorf("%d batches in a one-half round, want 7", len(slots))
			}
		}
	}
}

// NextOps grows a batch toward the goal the way testing.B does.
func TestNextOps(t *testing.T) {
	ms := int64(time.Millisecond)
	for _, tc := range []struct {
		prev   int
		prevNs int64
		want   int
	}{
		{1, 100_000, 100},      // 0.1 ms for 1 op: ×100 at most
		{100, 10 * ms, 240},    // 10 ms for 100: 200 for 20 ms, +20%
		{1000, 19 * ms, 1263},  // just short: a little more, +20%
		{5, 0, 500},            // a clock that saw nothing: ×100
		{10, 40 * ms, 11},      // already long enough: at least one more
		{50_000_000, ms, 1e8},  // capped at maxBatchOps
		{1e8, 1 * ms, 1e8 + 1}, // never below prev+1
		{3, 7 * ms, 10},        // 3 × 20/7 × 1.2 = 10.3
	} {
		if got := NextOps(tc.prev, tc.prevNs, 20*time.Millisecond); got != tc.want {
			t.Errorf("NextOps(%d, %d ns) = %d, want %d", tc.prev, tc.prevNs, got, tc.want)
		}
	}
}

// The orders of these seeds, as tmpprobe drew them before the engine was
// shared: a saved run's --seed replays the same batches.
func TestOrderPinned(t *testing.T) {
	for _, tc := range []struct {
		seed     uint64
		groups   [][]int
		rounds   int
		untraced bool
		want     []string
	}{
		{7, [][]int{{0, 1, 2}, {3, 4}, {5}}, 3, true, []string{
			"3u 4u 5u 0u 1u 2u 5t 1t 0t 2t 4t 3t",
			"0t 1t 2t 5t 4t 3t 1u 0u 2u 3u 4u 5u",
			"2t 0t 1t 4t 3t 5t 0u 2u 1u 4u 3u 5u"}},
		{42, [][]int{{0, 1, 2}}, 4, true, []string{
			"0u 1u 2u 2t 0t 1t", "2u 1u 0u 1t 2t 0t", "0u 1u 2u 2t 0t 1t", "2u 0u 1u 2t 0t 1t"}},
	} {
		for r, slots := range Order(tc.seed, tc.groups, tc.rounds, tc.untraced, true) {
			var got []string
			for _, s := range slots {
				got = append(got, fmt.Sprintf("%d%s", s.Case, map[bool]string{false: "u", true: "t"}[s.Traced]))
			}
			if g := strings.Join(got, " "); g != tc.want[r] {
				t.Errorf("seed %d round %d: %s, want %s", tc.seed, r+1, g, tc.want[r])
			}
		}
	}
	var got []string
	for _, slots := range Order(5, [][]int{{0, 1}, {2, 3}}, 2, true, false) {
		got = append(got, fmt.Sprint(slots))
	}
	if g := strings.Join(got, " "); g != "[{2 false} {3 false} {1 false} {0 false}] [{3 false} {2 false} {1 false} {0 false}]" {
		t.Errorf("seed 5 untraced only: %s", g)
	}
}
