"""Bounded reading of single members of an ``.npz`` file (a zip of ``.npy`` arrays).

``np.load`` on an ``.npz`` trusts the file: every member it is asked for is
decompressed whole before its shape can be checked, so a small file can claim
gigabytes. :class:`NpzMembers` reads one member's ``.npy`` header first (a few bytes of
the stream, without decompressing the rest), lets the caller check the shape and dtype,
refuses compression ratios no real array of weights has, and only then reads exactly the
bytes the header declares. Members that are never asked for are never decompressed.

Every problem is raised as :class:`symnb.errors.ModelFileError` naming the file.
"""

from __future__ import annotations

import math
import struct
import zipfile
import zlib
from typing import IO

import numpy as np

from symnb.errors import ModelFileError

#: A member larger than this must not be compressed more than MAX_RATIO times: a
#: stored (``np.savez``) member has ratio 1, weights compress at most a few times.
RATIO_FLOOR_BYTES = 1 << 20
MAX_RATIO = 200

#: Errors the zip and npy readers raise for broken or truncated files.
FORMAT_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    EOFError,
    zlib.error,
    struct.error,
    ValueError,
    NotImplementedError,
    RuntimeError,  # encrypted members
)


class NpzMembers:
    """Validated, bounded access to the members of one ``.npz`` file.

    Close it with ``close()`` (or ``contextlib.closing``); ``header(name)`` returns ``(shape, dtype)`` of member
    ``name`` (the array name, without ``.npy``) and ``read(name, shape, kinds)`` its
    data, after checking that it has that shape and a dtype of one of ``kinds``
    (NumPy dtype kind letters such as ``"f"``).
    """

    def __init__(
        self, path: str | IO[bytes], not_ours: str, label: str | None = None
    ) -> None:
        # ``path`` may be an open binary file (the bytes of a pickled model);
        # ``label`` then names it in messages
        self.path = path if label is None else label
        try:
            self._zip = zipfile.ZipFile(path)
        except FORMAT_ERRORS as exc:
            raise ModelFileError(
                path, f"{not_ours}: not a zip archive ({exc})"
            ) from exc

    def close(self) -> None:
        self._zip.close()

    def names(self) -> list[str]:
        """The array names (members ending in ``.npy``, without that suffix)."""
        return [n[:-4] for n in self._zip.namelist() if n.endswith(".npy")]

    def has(self, name: str) -> bool:
        return f"{name}.npy" in self._zip.NameToInfo

    def _info(self, name: str) -> zipfile.ZipInfo:
        try:
            info = self._zip.getinfo(f"{name}.npy")
        except KeyError:
            raise ModelFileError(self.path, f"the array {name!r} is missing") from None
        if info.flag_bits & 0x1:
            raise ModelFileError(self.path, f"the array {name!r} is encrypted")
        size, packed = info.file_size, max(info.compress_size, 1)
        if size > RATIO_FLOOR_BYTES and size > MAX_RATIO * packed:
            raise ModelFileError(
                self.path,
                f"the array {name!r} claims {size} bytes from {packed} compressed "
                f"bytes (more than {MAX_RATIO}:1); refusing to decompress it",
            )
        return info

    @staticmethod
    def _read_header(fh: IO[bytes]) -> tuple[tuple[int, ...], bool, np.dtype]:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            return np.lib.format.read_array_header_1_0(fh)
        if version == (2, 0):
            return np.lib.format.read_array_header_2_0(fh)
        raise ValueError(f"unsupported .npy format version {version}")

    def _wrap(self, name: str, exc: BaseException) -> ModelFileError:
        return ModelFileError(
            self.path, f"the array {name!r} is damaged or truncated ({exc})"
        )

    def header(self, name: str) -> tuple[tuple[int, ...], np.dtype]:
        """Shape and dtype of member ``name``, read from its first bytes only."""
        info = self._info(name)
        try:
            with self._zip.open(info) as fh:
                shape, _, dtype = self._read_header(fh)
        except FORMAT_ERRORS as exc:
            raise self._wrap(name, exc) from exc
        return shape, dtype

    def read(
        self,
        name: str,
        kinds: str,
        shape: tuple[int, ...] | None = None,
        max_bytes: int | None = None,
    ) -> np.ndarray:
        """The array ``name`` after checking its dtype kind, shape and size."""
        info = self._info(name)
        if max_bytes is not None and info.file_size > max_bytes:
            raise ModelFileError(
                self.path,
                f"the array {name!r} has {info.file_size} bytes, more than the "
                f"{max_bytes} allowed",
            )
        try:
            with self._zip.open(info) as fh:
                found, fortran, dtype = self._read_header(fh)
                if dtype.hasobject or dtype.kind not in kinds:
                    raise ModelFileError(
                        self.path,
                        f"the array {name!r} has dtype {dtype}, which a model file "
                        "never contains",
                    )
                if shape is not None and tuple(found) != tuple(shape):
                    raise ModelFileError(
                        self.path,
                        f"the array {name!r} has shape {tuple(found)}, expected "
                        f"{tuple(shape)}",
                    )
                nbytes = math.prod(found) * dtype.itemsize
                if nbytes > info.file_size:
                    raise ModelFileError(
                        self.path,
                        f"the array {name!r} declares {nbytes} bytes of data but "
                        f"the member holds {info.file_size}",
                    )
                raw = fh.read(nbytes)
                if len(raw) == nbytes and fh.read(1):  # reaching the end checks the CRC
                    raise ValueError("data after the array")
        except FORMAT_ERRORS as exc:
            if isinstance(exc, ModelFileError):
                raise
            raise self._wrap(name, exc) from exc
        if len(raw) != nbytes:
            raise ModelFileError(
                self.path,
                f"the array {name!r} is truncated ({len(raw)} of {nbytes} bytes)",
            )
        array = np.frombuffer(raw, dtype=dtype)
        return array.reshape(found, order="F" if fortran else "C")
