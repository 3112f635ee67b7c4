"""Read kcat (kafkacat) consumer output files into core records.

Two forms are understood, each read as the bytes kcat wrote (no newline translation):

``-J`` (JSON lines)
    :func:`parse_kcat_json`; exact for binary keys, values and headers.
``-f FORMAT``
    :func:`parse_kcat_format` with the same format string given to kcat (and ``-Z`` when kcat
    had it); exact for keys and values that follow their length (``%K``/``%S``/``%R``).

What the output cannot carry is ``None`` and named in :attr:`KcatParse.missing`; what it cannot
tell apart (empty and null without lengths, ``%h`` headers) in :attr:`KcatParse.caveats`. Output
that would be read as a different record is refused with the line and what to pass instead:
a record that splits two ways, offsets of a partition going back, ``NULL`` where ``-Z`` was
(not) given, a ``-J`` line that is not kcat's JSON object. Without ``%p`` the partition is
unknown unless stated (``partition=N``, kcat's ``-p N``). kcat's own ``%`` status lines (stderr
mixed in with ``2>&1``) are skipped where its 4 KiB stdout blocks end, when that is the one
reading that fits; output that reads two ways is refused. Consumers see neither batches nor control records:
:meth:`KcatParse.to_partition_log` puts each record in its own batch, so batch boundaries, sizes
of batched data and transaction markers are not real.
"""

from __future__ import annotations

from pathlib import Path

from kcompact_nb.io.text._kcat_format import KcatFormat
from kcompact_nb.io.text._kcat_json import parse_kcat_json
from kcompact_nb.io.text._kcat_records import KcatParse
from kcompact_nb.io.text._kcat_text import parse_kcat_format


def read_kcat(
    path: str | Path, fmt: str | KcatFormat | None = None, *, print_nulls: bool = False, partition: int | None = None
) -> KcatParse:
    """Parse a file of kcat output: ``-J`` JSON lines when ``fmt`` is ``None``, else ``-f fmt`` output.

    ``print_nulls`` is kcat's ``-Z``, ``partition`` its ``-p N`` (the output holds that partition
    only). The file is read as bytes, exactly as kcat wrote it.
    """
    path = Path(path)
    data = path.read_bytes()
    if fmt is None:
        return parse_kcat_json(data, partition=partition, source=str(path))
    return parse_kcat_format(data, fmt, print_nulls=print_nulls, partition=partition, source=str(path))
