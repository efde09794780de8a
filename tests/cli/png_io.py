"""Small image-file helpers for the CLI tests, with NumPy only (Pillow is used when present, for
speed; the pure reader covers the 8-bit, non-interlaced PNGs gausslab writes).

- read_png(path) -> uint8 array (H, W, C) with C = the file's channels (1 grey, 2 grey+alpha, 3 RGB, 4 RGBA)
- write_png(path, array) for (H, W, C) uint8 arrays, C in 1..4
- file_channels(path): the channels stb_image reports for a PNG or JPEG, read from its header
"""
import struct
import zlib

import numpy as np

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# PNG colour type -> channels (palette handled apart: 3, or 4 with a tRNS chunk)
COLOUR_CHANNELS = {0: 1, 4: 2, 2: 3, 6: 4}
CHANNEL_COLOUR = {c: t for t, c in COLOUR_CHANNELS.items()}


def _chunks(data):
    if not data.startswith(PNG_SIGNATURE):
        raise ValueError("not a PNG file")
    pos = len(PNG_SIGNATURE)
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        yield kind, data[pos + 8:pos + 8 + length]
        pos += 12 + length


def file_channels(path):
    """Channels stb_image reports for this PNG or JPEG (what gausslab calls source_channels)."""
    with open(path, "rb") as file:
        data = file.read()
    if data.startswith(PNG_SIGNATURE):
        kinds = {}
        for kind, body in _chunks(data):
            kinds.setdefault(kind, body)
        colour_type = kinds[b"IHDR"][9]
        if colour_type == 3:
            return 4 if b"tRNS" in kinds else 3
        return COLOUR_CHANNELS[colour_type]  # stb_info ignores a grey/RGB colour key (tRNS)
    if data.startswith(b"\xff\xd8"):
        pos = 2
        while pos + 4 <= len(data):
            if data[pos] != 0xFF:
                pos += 1
                continue
            marker = data[pos + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                pos += 2
                continue
            length = struct.unpack(">H", data[pos + 2:pos + 4])[0]
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # start of frame
                return data[pos + 9]
            pos += 2 + length
        raise ValueError(f"{path}: no JPEG frame header")
    raise ValueError(f"{path}: neither PNG nor JPEG")


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _read_png_pure(data):
    header = None
    idat = []
    for kind, body in _chunks(data):
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or interlace != 0 or colour_type not in COLOUR_CHANNELS:
        raise ValueError("only 8-bit, non-interlaced grey/grey+alpha/RGB/RGBA PNGs are read without Pillow")
    channels = COLOUR_CHANNELS[colour_type]
    stride = width * channels
    raw = zlib.decompress(b"".join(idat))
    out = np.zeros((height, stride), dtype=np.uint8)
    prior = np.zeros(stride, dtype=np.int64)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=y * (stride + 1) + 1).astype(np.int64)
        if kind == 0:
            row = line
        elif kind == 2:
            row = (line + prior) % 256
        elif kind == 1:  # each byte adds the one `channels` to its left: a running sum per channel
            row = np.cumsum(line.reshape(width, channels), axis=0).reshape(-1) % 256
        else:
            values = line.tolist()
            up = prior.tolist()
            for i in range(stride):
                left = values[i - channels] if i >= channels else 0
                upper_left = up[i - channels] if i >= channels else 0
                if kind == 3:
                    values[i] = (values[i] + (left + up[i]) // 2) % 256
                else:
                    values[i] = (values[i] + _paeth(left, up[i], upper_left)) % 256
            row = np.array(values, dtype=np.int64)
        out[y] = row
        prior = row
    return out.reshape(height, width, channels)


def read_png(path):
    """(H, W, C) uint8 with the file's own channel count."""
    with open(path, "rb") as file:
        data = file.read()
    try:
        from PIL import Image  # fast path where Pillow exists
    except ImportError:
        return _read_png_pure(data)
    with Image.open(path) as image:
        mode_channels = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4}
        if image.mode not in mode_channels:
            return _read_png_pure(data)
        array = np.asarray(image, dtype=np.uint8)
    return array.reshape(array.shape[0], array.shape[1], mode_channels[image.mode])


def write_png(path, array):
    """Writes an (H, W, C) uint8 array, C in 1..4, as an 8-bit PNG (no filtering)."""
    array = np.ascontiguousarray(array, dtype=np.uint8)
    height, width, channels = array.shape
    rows = b"".join(b"\x00" + array[y].tobytes() for y in range(height))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, CHANNEL_COLOUR[channels], 0, 0, 0)
    with open(path, "wb") as file:
        file.write(PNG_SIGNATURE + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))
