# Two functions of known relative cost: heavy() runs light()'s loop three
# times over the same range (same integers, so the same cost per
# iteration). Sampled user time must keep 3:1.
import random
import sys


def light(n):
    x = 0
    for i in range(n):
        x += i * i % 7
    return x


def heavy(n):
    x = 0
    for _ in range(3):
        for i in range(n):
            x += i * i % 7
    return x


def main():
    # Short calls, alternated: a burst of contention from a neighbour on
    # the host slows both alike instead of one call of one function. Their
    # length varies (same n for both): a loop of fixed period can phase-
    # lock with a fixed sampling period and be sampled off its true share.
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    rng = random.Random(39)
    for _ in range(rounds):
        n = rng.randint(1000, 3000)
        light(n)
        heavy(n)


main()
