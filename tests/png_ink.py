# SPDX-License-Identifier: MIT
# Reads a PNG that gnuplot's pngcairo terminal wrote (8-bit RGB or RGBA, not interlaced;
# decoded here with zlib and struct alone, as the test machine has no imaging library) and
# prints what a reviewer would look at, one "key value" per line:
#   size W H
#   ink N        chromatic pixels (max - min channel > 40: the data's colours, not the
#                white background, black text and axes, or grey grid and idle bars)
#                inside the central box (20 % margins left and right, 15 % top and
#                bottom), where the axes are
#   box N        pixels in that box
#   colour #RRGGBB N   the chromatic colours that cover at least 2 % of the ink, most first
#   foreign #RRGGBB N  (with a palette) such a colour, of 20 pixels or more, that is neither a colour of the palette
#                nor one blended with the white background (antialiased edges, thin lines)
# Used by tests/plot_cli.sh.
#
#   python3 tests/png_ink.py FIGURE.png [okabe-ito|viridis]
#
# Okabe-Ito: Okabe and Ito, "Color Universal Design" (2008), the eight colours; viridis:
# the five stops plots/links_heatmap.gp interpolates between (van der Walt and Smith, 2015).
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG" % path)
    pos, idat, width = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace != 0:
                sys.exit("%s: depth %d colour type %d interlace %d: only 8-bit RGB/RGBA, "
                         "not interlaced" % (path, depth, ctype, interlace))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if width is None:
        sys.exit("%s: no IHDR" % path)
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ftype == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif ftype == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif ftype == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        elif ftype != 0:
            sys.exit("%s: row %d: unknown filter %d" % (path, y, ftype))
        rows.append(line)
        prev = line
    return width, height, bpp, rows


OKABE_ITO = ["#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00",
             "#CC79A7"]
VIRIDIS = ["#440154", "#3B528B", "#21908C", "#5DC963", "#FDE725"]


def rgb(text):
    return tuple(int(text[i:i + 2], 16) for i in (1, 3, 5))


def allowed(name):
    """The palette's colours: Okabe-Ito's eight, or 40 steps along each viridis segment."""
    if name == "okabe-ito":
        return [rgb(c) for c in OKABE_ITO]
    stops = [rgb(c) for c in VIRIDIS]
    out = []
    for a, b in zip(stops, stops[1:]):
        for k in range(41):
            out.append(tuple(a[i] + (b[i] - a[i]) * k / 40.0 for i in range(3)))
    return out


def in_palette(colour, palette):
    """colour is a palette colour p, or p blended with white: 255 - t (255 - p), t in (0, 1]."""
    for p in palette:
        for k in range(1, 101):
            t = k / 100.0
            if max(abs(colour[i] - (255 - t * (255 - p[i]))) for i in range(3)) <= 10:
                return True
    return False


def main():
    width, height, bpp, rows = read_png(sys.argv[1])
    x0, x1 = width * 20 // 100, width * 80 // 100
    y0, y1 = height * 15 // 100, height * 85 // 100
    ink, colours = 0, {}
    for y in range(y0, y1):
        line = rows[y]
        for x in range(x0, x1):
            r, g, b = line[x * bpp], line[x * bpp + 1], line[x * bpp + 2]
            if bpp == 4 and line[x * bpp + 3] < 128:
                continue  # transparent: background
            if max(r, g, b) - min(r, g, b) > 40:
                ink += 1
                key = (r, g, b)
                colours[key] = colours.get(key, 0) + 1
    print("size %d %d" % (width, height))
    print("ink %d" % ink)
    print("box %d" % ((x1 - x0) * (y1 - y0)))
    palette = allowed(sys.argv[2]) if len(sys.argv) > 2 else None
    for (r, g, b), n in sorted(colours.items(), key=lambda kv: (-kv[1], kv[0])):
        if n * 50 >= ink:
            print("colour #%02X%02X%02X %d" % (r, g, b, n))
            # a few pixels are edges blended with the grid or text, not a colour drawn
            if palette is not None and n >= 20 and not in_palette((r, g, b), palette):
                print("foreign #%02X%02X%02X %d" % (r, g, b, n))


main()
