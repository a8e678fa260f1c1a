#!/usr/bin/env python3
# pdf_input.py — writes the PDF the `ghostscript` workload interprets
# (`gs -dBATCH -dNOPAUSE -dSAFER -q -sDEVICE=txtwrite -sOutputFile=-`): pages
# of text in the standard fonts, curves, filled and stroked shapes and a
# shared form object, each page's content compressed (FlateDecode) — what a
# PDF interpreter allocates for real documents. Deterministic: every word and
# shape comes from --seed; --size picks the page count. gs prints the text it
# finds, which bench compares across allocators.
import argparse
import random
import sys
import zlib

SIZES = {"tiny": 2, "small": 24, "medium": 80, "large": 320}
WORDS_PER_LINE = 12
LINES_PER_PAGE = 48


def page_content(rng, number):
    ops = ["BT /F1 9 Tf 11 TL 40 800 Td"]
    for _ in range(LINES_PER_PAGE):
        words = " ".join("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
                         for _ in range(WORDS_PER_LINE))
        ops.append(f"({words}) Tj T*")
    ops.append(f"/F2 14 Tf (page {number}) Tj ET")
    for _ in range(120):
        x, y = rng.uniform(20, 560), rng.uniform(20, 780)
        r, g, b = rng.random(), rng.random(), rng.random()
        ops.append(f"q {r:.3f} {g:.3f} {b:.3f} rg {b:.3f} {r:.3f} {g:.3f} RG {rng.uniform(0.2, 3):.2f} w "
                   f"{x:.1f} {y:.1f} m {x + rng.uniform(-80, 80):.1f} {y + rng.uniform(-80, 80):.1f} "
                   f"{x + rng.uniform(-80, 80):.1f} {y + rng.uniform(-80, 80):.1f} "
                   f"{x + rng.uniform(-80, 80):.1f} {y + rng.uniform(-80, 80):.1f} c h B Q")
    ops.append("q 1 0 0 1 300 40 cm /Stamp Do Q")
    return "\n".join(ops).encode()


def main():
    parser = argparse.ArgumentParser(description="the ghostscript workload's PDF, on standard output")
    parser.add_argument("--size", choices=sorted(SIZES), required=True)
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    pages = SIZES[args.size]
    objects = {}  # number -> bytes of the object's body
    # 1 catalog, 2 pages, 3 and 4 fonts, 5 the form; then a page and its content per page
    first = 6
    kids = " ".join(f"{first + 2 * i} 0 R" for i in range(pages))
    objects[1] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[2] = f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode()
    objects[3] = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
    objects[4] = b"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Bold >>"
    form = zlib.compress(b"0 0 1 RG 2 w 0 0 m 100 0 l 100 30 l 0 30 l h S BT /F2 10 Tf 8 10 Td (allocstamp) Tj ET", 9)
    objects[5] = (f"<< /Type /XObject /Subtype /Form /BBox [0 0 100 30] /Resources << /Font << /F2 4 0 R >> >> "
                  f"/Filter /FlateDecode /Length {len(form)} >>\nstream\n").encode() + form + b"\nendstream"
    for i in range(pages):
        page, content = first + 2 * i, first + 2 * i + 1
        data = zlib.compress(page_content(rng, i + 1), 6)
        objects[page] = (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents {content} 0 R "
                         f"/Resources << /Font << /F1 3 0 R /F2 4 0 R >> /XObject << /Stamp 5 0 R >> >> >>").encode()
        objects[content] = f"<< /Filter /FlateDecode /Length {len(data)} >>\nstream\n".encode() + data + b"\nendstream"
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += f"{number} 0 obj\n".encode() + objects[number] + b"\nendobj\n"
    xref = len(out)
    count = max(objects) + 1
    out += f"xref\n0 {count}\n0000000000 65535 f \n".encode()
    for number in range(1, count):
        out += f"{offsets[number]:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {count} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    sys.stdout.buffer.write(out)


if __name__ == "__main__":
    main()
