"""A loopback HTTP server for download tests: redirects, Range requests, cut connections.

    with FileServer({"crmarenapro_b2b_data.db": data}) as server:
        server.url("raw/main/local_data/crmarenapro_b2b_data.db")  # 302 -> /media/<name>

`/media/<name>` serves the bytes (206 for a `Range: bytes=N-` request); `cut_after[name] = n`
makes the next answer for `name` promise the whole file and close after n bytes. `requests` lists
(path, Range header) of every request.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FileServer:
    def __init__(self, files: dict[str, bytes], *, honour_range: bool = True) -> None:
        self.files = dict(files)
        self.honour_range = honour_range
        self.cut_after: dict[str, int] = {}
        self.requests: list[tuple[str, str | None]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                server.requests.append((self.path, self.headers.get("Range")))
                parts = self.path.strip("/").split("/")
                name = parts[-1]
                if "raw" in parts:  # the repository's address: a redirect to the file host
                    self.send_response(302)
                    self.send_header("Location", f"/media/{name}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if name not in server.files:
                    self.send_error(404, "Not Found")
                    return
                data = server.files[name]
                start = 0
                wanted = self.headers.get("Range")
                if wanted and server.honour_range and wanted.startswith("bytes="):
                    start = int(wanted[6:].split("-")[0])
                    if start >= len(data):
                        self.send_response(416)
                        self.send_header("Content-Range", f"bytes */{len(data)}")
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
                else:
                    self.send_response(200)
                body = data[start:]
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Content-Type", "application/octet-stream")
                self.end_headers()
                cut = server.cut_after.pop(name, None)
                self.wfile.write(body if cut is None else body[:cut])
                if cut is not None:
                    self.wfile.flush()
                    self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/"

    def url(self, path: str) -> str:
        return self.base + path.lstrip("/")

    def __enter__(self) -> FileServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
