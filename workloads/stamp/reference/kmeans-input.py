#!/usr/bin/env python3
# kmeans-input.py — writes a kmeans input as STAMP's kmeans/inputs/generate.py
# does (clustered points: seed 0, `centers` random centres in the unit cube,
# each row a random centre plus Gaussian noise of sigma (1/centers)^3), with the
# Python 2 it was written for reproduced: its random.choice (one random()
# scaled) and its print of a float (12 significant digits). It reproduces
# STAMP's shipped random-n2048-d16-c16.txt and random-n16384-d24-c16.txt byte
# for byte (checked when the reference was measured: README.md here), and
# writes random-n65536-d32-c16.txt, which the repository lacks.
"""Usage: kmeans-input.py ROWS DIMENSIONS CENTERS > file"""
import random
import sys


def main():
    if len(sys.argv) != 4:
        print("error: want ROWS DIMENSIONS CENTERS — e.g. kmeans-input.py 65536 32 16 > random-n65536-d32-c16.txt",
              file=sys.stderr)
        sys.exit(2)
    rows, dims, count = (int(x) for x in sys.argv[1:])
    rng = random.Random(0)
    centers = [[rng.random() for _ in range(dims)] for _ in range(count)]
    sigma = (1.0 / count) ** 3
    out = sys.stdout
    for row in range(1, rows + 1):
        center = centers[int(rng.random() * len(centers))]  # Python 2's random.choice
        out.write(str(row))
        for d in range(dims):
            out.write(" %.12g" % (center[d] + rng.gauss(0, sigma)))
        out.write("\n")


if __name__ == "__main__":
    main()
