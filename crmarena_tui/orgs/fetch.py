"""`org fetch`: get an upstream snapshot file onto this machine, resumably.

Downloads go to `<orgs folder>/downloads/<file name>.part` and are renamed once whole. A `.part`
left by an interrupted download is resumed with an HTTP `Range` request (a server that ignores it
answers 200, and the download starts over). Redirects are followed (GitHub serves LFS files from
another host). A Git LFS pointer (the ~130-byte text a repository holds in place of the file), a file
that is not SQLite or is shorter than its header says are refused and removed, with a message
that says which. `--from` takes another address, or the path of a file downloaded by hand.
"""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from collections.abc import Callable
from http.client import HTTPException
from pathlib import Path
from urllib.parse import urlparse

from crmarena_tui.errors import UserError
from crmarena_tui.orgs.snapshot_import import (
    LFS_MAGIC,
    SnapshotError,
    check_snapshot_file,
    lfs_pointer_message,
)
from crmarena_tui.orgs.upstream import FILE_NAMES, download_url

CHUNK = 1 << 18
TIMEOUT = 60.0  # seconds without a byte before a download counts as interrupted
Progress = Callable[[int, int | None], None]  # (bytes so far, total bytes or None)


class FetchError(UserError, RuntimeError):
    """The snapshot could not be fetched; the message says why and what to do."""


class Unreachable(FetchError):
    """The server could not be reached at all (no network, a proxy, a firewall)."""


def is_url(source: str) -> bool:
    return urlparse(source).scheme in ("http", "https", "file")


def _total_from(response: object, have: int) -> tuple[int, int | None]:
    """(offset the body starts at, whole file size) from a 200 or 206 answer."""
    headers = response.headers  # type: ignore[attr-defined]
    status = response.status  # type: ignore[attr-defined]
    if status == 206:
        value = headers.get("Content-Range", "")  # bytes START-END/TOTAL
        try:
            span, total = value.split(" ", 1)[1].split("/")
            start = int(span.split("-")[0])
            return start, (int(total) if total != "*" else None)
        except (IndexError, ValueError):
            raise FetchError(f"the server answered a resumed download oddly: {value!r}") from None
    length = headers.get("Content-Length")
    return 0, (int(length) if length and length.isdigit() else None)


def download(
    url: str, part: Path, *, progress: Progress | None = None, timeout: float = TIMEOUT
) -> Path:
    """Download `url` into `part`, continuing from what `part` already holds; return `part`."""
    from crmarena_tui import __version__

    part.parent.mkdir(parents=True, exist_ok=True)
    have = part.stat().st_size if part.exists() else 0
    request = urllib.request.Request(url, headers={"User-Agent": f"crmarena-tui/{__version__}"})
    if have:
        request.add_header("Range", f"bytes={have}-")
    host = urlparse(url).hostname or url
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and have:  # nothing left to send: the file is already whole
            return part
        raise FetchError(f"{url}: the server answered HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError, HTTPException) as exc:
        reason = getattr(exc, "reason", exc)
        raise Unreachable(f"cannot reach {host}: {reason}") from None
    with response:
        start, total = _total_from(response, have)
        if start != have:  # a 200 (Range ignored), or an answer for another offset
            have = 0
        done = have
        try:
            with part.open("ab" if have else "wb") as out:
                if progress:
                    progress(done, total)
                while True:
                    block = response.read(CHUNK)
                    if not block:
                        break
                    out.write(block)
                    done += len(block)
                    if progress:
                        progress(done, total)
        except (TimeoutError, OSError, HTTPException) as exc:
            raise FetchError(_interrupted(done, total, f"{type(exc).__name__}")) from None
    if total is not None and done < total:
        raise FetchError(_interrupted(done, total, "the connection closed early"))
    return part


def _interrupted(done: int, total: int | None, why: str) -> str:
    of = f" of {total / 1e6:.1f} MB" if total else ""
    return (
        f"the download was interrupted at {done / 1e6:.1f} MB{of} ({why}); run the same command "
        "again to resume it"
    )


def check_download(path: Path, origin: str) -> None:
    """Refuse (and remove) a downloaded file that is not a whole SQLite database."""
    with path.open("rb") as fh:
        head = fh.read(len(LFS_MAGIC))
    if head == LFS_MAGIC:
        size = path.stat().st_size
        path.unlink()
        raise FetchError(lfs_pointer_message(f"what {origin} sent", size))
    try:
        check_snapshot_file(path)
    except SnapshotError as exc:
        path.unlink()
        raise FetchError(f"{exc} (downloaded from {origin}; the file was removed)") from None


def fetch_snapshot(
    org_type: str,
    source: str | None = None,
    *,
    folder: Path | None = None,
    progress: Progress | None = None,
) -> tuple[Path, str]:
    """The local snapshot file of `org_type` and where it came from: `source` when it is a path,
    else downloaded from `source` (default: upstream's address) into `folder`."""
    from crmarena_tui.settings import locations

    if source is not None and not is_url(source):
        path = Path(source).expanduser()
        if not path.is_file():
            raise FetchError(f"--from: no such file: {path}")
        try:
            check_snapshot_file(path)
        except SnapshotError as exc:
            raise FetchError(str(exc)) from None
        return path, str(path.resolve())
    url = source or download_url(org_type)
    folder = folder or locations.downloads_dir()
    final = folder / FILE_NAMES[org_type]
    part = final.with_name(final.name + ".part")
    try:
        download(url, part, progress=progress)
    except Unreachable as exc:  # no network here: the file can come from elsewhere
        raise Unreachable(
            f"{exc}. Without network here, download {url} ({final.name}) on a machine that "
            f"has it, copy it over, then run `crmarena-tui org fetch {org_type} --from "
            f"PATH/{final.name}`"
        ) from None
    check_download(part, url)
    os.replace(part, final)
    return final, url
