"""A loopback stand-in for the Hugging Face hub: one dataset repository, served the way
`huggingface_hub` and `datasets` ask for it when `HF_ENDPOINT` names this server.

    with FakeHub("Salesforce/CRMArenaPro", {"README.md": card, "CRMArenaPro/b2b.parquet": data}):
        ...  # HF_ENDPOINT=hub.endpoint

It answers the dataset's API pages (`/api/datasets/<repo>`, `/revision/<rev>`, `/tree/<rev>/...`,
`/paths-info/<rev>`) and its files (`/datasets/<repo>/resolve/<rev>/<path>`, with the commit and
ETag headers the hub sends); everything else is a 404. `requests` lists (method, path) of every
request.
"""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

COMMIT = "0123456789abcdef0123456789abcdef01234567"


class FakeHub:
    def __init__(self, repo: str, files: dict[str, bytes]) -> None:
        self.repo = repo
        self.files = dict(files)
        self.requests: list[tuple[str, str]] = []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_HEAD(self) -> None:  # noqa: N802 - http.server's name
                hub.answer(self, head=True)

            def do_GET(self) -> None:  # noqa: N802
                hub.answer(self)

            def do_POST(self) -> None:  # noqa: N802
                hub.answer(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> FakeHub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # ------------------------------------------------------------------ answers

    def entry(self, path: str) -> dict[str, Any]:
        if path in self.files:
            data = self.files[path]
            return {"type": "file", "path": path, "size": len(data), "oid": _oid(data)}
        return {"type": "directory", "path": path, "size": 0, "oid": _oid(path.encode())}

    def folders(self) -> set[str]:
        found = set()
        for path in self.files:
            parts = path.split("/")[:-1]
            found.update("/".join(parts[: i + 1]) for i in range(len(parts)))
        return found

    def tree(self, folder: str, recursive: bool) -> list[dict[str, Any]]:
        names = sorted(set(self.files) | self.folders())
        prefix = f"{folder}/" if folder else ""
        inside = [n for n in names if n.startswith(prefix) and n != folder]
        if not recursive:
            inside = [n for n in inside if "/" not in n[len(prefix) :]]
        return [self.entry(n) for n in inside]

    def info(self) -> dict[str, Any]:
        return {
            "_id": "fake",
            "id": self.repo,
            "author": self.repo.split("/")[0],
            "sha": COMMIT,
            "lastModified": "2025-01-01T00:00:00.000Z",
            "private": False,
            "gated": False,
            "disabled": False,
            "downloads": 0,
            "likes": 0,
            "tags": [],
            "cardData": {},
            "siblings": [{"rfilename": n} for n in sorted(self.files)],
            "createdAt": "2025-01-01T00:00:00.000Z",
            "usedStorage": sum(len(d) for d in self.files.values()),
        }

    def answer(self, handler: BaseHTTPRequestHandler, head: bool = False) -> None:
        url = urlparse(handler.path)
        path = unquote(url.path)
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        self.requests.append((handler.command, handler.path))
        api = f"/api/datasets/{self.repo}"
        resolve = f"/datasets/{self.repo}/resolve/"
        if path.startswith(resolve):
            _rev, _, name = path[len(resolve) :].partition("/")
            if name in self.files:
                data = self.files[name]
                headers = {"X-Repo-Commit": COMMIT, "ETag": f'"{_oid(data)}"'}
                return _send(handler, data, "application/octet-stream", head, headers)
            return _send(handler, b"", "text/plain", head, {"X-Error-Code": "EntryNotFound"}, 404)
        if path in (api, f"{api}/revision/main", f"{api}/revision/{COMMIT}"):
            return _json(handler, self.info(), head)
        if path.startswith(f"{api}/tree/"):
            _rev, _, folder = path[len(f"{api}/tree/") :].partition("/")
            recursive = parse_qs(url.query).get("recursive", ["false"])[0].lower() == "true"
            folder = folder.strip("/")
            if folder and folder not in self.folders():
                return _json(handler, {"error": "not found"}, head, 404)
            return _json(handler, self.tree(folder, recursive), head)
        if path.startswith(f"{api}/paths-info/"):
            form = parse_qs(body.decode())
            if not form and body:
                form = {"paths": json.loads(body).get("paths", [])}
            wanted = form.get("paths", [])
            known = set(self.files) | self.folders()
            return _json(handler, [self.entry(p) for p in wanted if p in known], head)
        return _json(handler, {"error": "not found"}, head, 404)


def _oid(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def _json(handler: BaseHTTPRequestHandler, data: Any, head: bool, status: int = 200) -> None:
    _send(handler, json.dumps(data).encode(), "application/json", head, {}, status)


def _send(
    handler: BaseHTTPRequestHandler,
    data: bytes,
    kind: str,
    head: bool,
    headers: dict[str, str],
    status: int = 200,
) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", kind)
    handler.send_header("Content-Length", str(len(data)))
    for key, value in headers.items():
        handler.send_header(key, value)
    handler.end_headers()
    if not head:
        handler.wfile.write(data)
