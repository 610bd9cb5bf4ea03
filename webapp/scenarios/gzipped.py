"""Gzip-compressed uploads (a `.gz` file, or a body sent with `Content-Encoding: gzip`).

The data is expanded a chunk at a time with a bound on the expanded size, so a small file
that would unpack to gigabytes (a "zip bomb") is refused before it is held in memory.
"""

import zlib

from .manifests.limits import human_bytes

CHUNK = 1 << 16
MAGIC = b"\x1f\x8b"


class GzipError(ValueError):
    """The data is not gzip, is cut short, or expands past the limit; the message names the file."""

    def __init__(self, message, too_large=False):
        super().__init__(message)
        self.too_large = too_large


def is_gzip(filename, head):
    """Whether an uploaded file is gzip: by its name, or by the two bytes every gzip file starts with."""
    return (filename or "").lower().endswith(".gz") or head[:2] == MAGIC


def gunzip(chunks, filename, limit, setting):
    """The expanded bytes of the gzip data in `chunks`; raises GzipError past `limit` bytes (`setting` names it)."""
    decoder, out = zlib.decompressobj(16 + zlib.MAX_WBITS), bytearray()
    try:
        for chunk in chunks:
            while chunk:
                if decoder.eof:  # a file of several gzip members (cat a.gz b.gz) is their texts in a row
                    chunk, decoder = decoder.unused_data + chunk, zlib.decompressobj(16 + zlib.MAX_WBITS)
                out += decoder.decompress(chunk, limit + 1 - len(out))
                if len(out) > limit:
                    raise GzipError(f"{filename} expands to more than {human_bytes(limit)} when decompressed; "
                                    f"the limit is {human_bytes(limit)} ({setting}).", too_large=True)
                chunk = decoder.unconsumed_tail
    except zlib.error as e:
        raise GzipError(f"{filename} is not valid gzip data ({e}).") from e
    if not decoder.eof:
        raise GzipError(f"{filename} is not complete gzip data: it ends before the compressed stream does.")
    return bytes(out)


def read_upload(upload, limit, setting):
    """An uploaded file's bytes, expanded when it is gzip."""
    head = upload.read(2)
    upload.seek(0)
    if not is_gzip(upload.name, head):
        return upload.read()
    return gunzip(upload.chunks(CHUNK), upload.name, limit, setting)
