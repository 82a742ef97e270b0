#!/usr/bin/env python3
"""Writes the progressive JPEG fixtures that prefetch-server serves and the tests read.

Deterministic: the pictures are drawn from a seeded generator, and Pillow (libjpeg) encodes them
with fixed settings, so running this again with the same Pillow writes the same bytes.

    pip install pillow
    python3 Tools/Fixtures/make-progressive-jpegs.py            # writes the photos and prints the table
    python3 Tools/Fixtures/make-progressive-jpegs.py --check    # decodes each first-scan prefix too

Writes Tools/Sources/PrefetchServer/Photos/photo-N.jpg (the full photos, progressive) and
thumb-N.jpg (200 px wide variants, progressive), and Tools/Fixtures/first-scans.txt: for each file its
size and the offset of its second start-of-scan marker, the first scan's end, found here by walking
the markers the way PrefetchHTTP's ProgressiveJPEG does, so the Swift tests compare with it.
"""
import io
import random
import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFile, ImageFilter

ROOT = Path(__file__).resolve().parent
PHOTOS = ROOT.parent / "Sources" / "PrefetchServer" / "Photos"
# (width, height): feed photos about 1170 px wide (a 390 pt screen at 3x), squares, a small tile.
SIZES = [(1170, 780), (1170, 1462), (1170, 658), (600, 600), (390, 390), (200, 200)]
THUMB_WIDTH = 200


def draw(seed, size):
    rng = random.Random(seed)
    w, h = size
    # Base: a vertical two-colour gradient (a sky over ground).
    top = [rng.randrange(40, 220) for _ in range(3)]
    bottom = [rng.randrange(20, 200) for _ in range(3)]
    img = Image.new("RGB", size)
    px = ImageDraw.Draw(img)
    for y in range(h):
        t = y / max(1, h - 1)
        px.line([(0, y), (w, y)], fill=tuple(int(a + (b - a) * t) for a, b in zip(top, bottom)))
    # Shapes of random colours and sizes, softened: the edges a photo's subjects give.
    for _ in range(rng.randrange(12, 24)):
        x0, y0 = rng.randrange(-w // 4, w), rng.randrange(-h // 4, h)
        x1, y1 = x0 + rng.randrange(w // 10, w // 2), y0 + rng.randrange(h // 10, h // 2)
        colour = tuple(rng.randrange(0, 256) for _ in range(3))
        (px.ellipse if rng.random() < 0.5 else px.rectangle)([x0, y0, x1, y1], fill=colour)
    img = img.filter(ImageFilter.GaussianBlur(radius=max(1, w // 300)))
    # Fine texture (sensor noise, foliage): what makes photo bytes, from a seeded generator.
    noise = Image.frombytes("L", size, bytes(rng.randrange(0, 140) for _ in range(w * h)))
    return Image.composite(img, Image.new("RGB", size, (128, 128, 128)), noise.point(lambda v: 255 - v))


def encode(img, quality):
    out = io.BytesIO()
    img.save(out, "JPEG", quality=quality, progressive=True, optimize=True, subsampling="4:2:0")
    return out.getvalue()


def first_scan_end(data):
    """The offset of the second SOS marker (0xFFDA), or None: a plain marker walk."""
    if data[:2] != b"\xff\xd8":
        return None
    i, scans, progressive = 2, 0, False
    while i + 1 < len(data):
        if data[i] != 0xFF:
            return None
        while i < len(data) and data[i] == 0xFF:
            i += 1
        if i >= len(data):
            return None
        marker, start = data[i], i - 1
        i += 1
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            continue
        if marker == 0xD9:
            return None
        if marker == 0xDA:
            scans += 1
            if scans == 2:
                return start if progressive else None
        length = int.from_bytes(data[i:i + 2], "big")
        if marker in (0xC2, 0xC6, 0xCA, 0xCE):
            progressive = True
        elif 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return None
        i += length
        if marker == 0xDA:  # entropy-coded data: up to a marker that is not a stuffed 0x00 or an RST
            while i + 1 < len(data):
                if data[i] == 0xFF and data[i + 1] != 0x00 and not 0xD0 <= data[i + 1] <= 0xD7:
                    break
                i += 1
    return None


def main():
    check = "--check" in sys.argv
    PHOTOS.mkdir(parents=True, exist_ok=True)
    rows = []
    for n, size in enumerate(SIZES):
        img = draw(1000 + n, size)
        thumb = img.resize((THUMB_WIDTH, max(1, size[1] * THUMB_WIDTH // size[0])), Image.LANCZOS)
        for name, picture, quality in ((f"photo-{n}.jpg", img, 72), (f"thumb-{n}.jpg", thumb, 75)):
            data = encode(picture, quality)
            (PHOTOS / name).write_bytes(data)
            end = first_scan_end(data)
            rows.append((name, len(data), end))
            if check:
                # libjpeg decodes the prefix (first scan, with an end-of-image marker) to the whole frame.
                ImageFile.LOAD_TRUNCATED_IMAGES = True
                head = Image.open(io.BytesIO(data[:end] + b"\xff\xd9"))
                head.load()
                assert head.size == picture.size, (name, head.size)
    total = sum(size for _, size, _ in rows)
    lines = [f"{name} {size} {end}" for name, size, end in rows]
    (ROOT / "first-scans.txt").write_text(
        "# file, bytes, first scan's end (offset of the second SOS marker); written by make-progressive-jpegs.py\n"
        + "\n".join(lines) + "\n")
    for name, size, end in rows:
        print(f"{name:14} {size:8} bytes  first scan ends at {end:7} ({100 * end / size:4.1f} %)")
    print(f"total {total} bytes")


if __name__ == "__main__":
    main()
