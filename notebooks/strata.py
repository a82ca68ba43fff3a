"""Ask strata questions from Python (notebooks, scripts). Standard library only.

    import strata
    res = strata.query("Who founded the guild?", data_dir=".strata", mode="naive")
    res["context"]["chunks"][0]["title"]

query() runs ``strata query --json`` (the binary named by STRATA_BIN, else ``strata`` on PATH), or
POSTs to a running ``strata serve`` when url is given, and returns the parsed ``query --json``
object; with on_delta (serve only) the answer's text reaches on_delta while the model writes it.
Every failure raises StrataError with strata's own message; its ``code`` is strata's exit
code (CLI) or the HTTP status (serve). serve() starts ``strata serve`` for the length of a
``with`` block. Settings other than the query's own (offline mode, Neo4j, the LLM) come from the
environment, as for the CLI: STRATA_OFFLINE, NEO4J_URI, OPENAI_API_KEY, ...
"""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
import urllib.error
import urllib.request

__all__ = ["StrataError", "query", "status", "ingest", "serve", "binary"]

# The query options, as POST /query names them; the CLI flag is the name with dashes.
QUERY_OPTIONS = ("top_k", "entities", "max_context_tokens", "context_only")


class StrataError(Exception):
    """A strata command or request that failed.

    message: strata's error message; code: the exit code of the command (1 failure, 2 bad
    usage, ...) or the HTTP status of the request (400, 503, ...), None when strata could not be
    run or reached at all; stderr: the command's stderr, when there is one.
    """

    def __init__(self, message, code=None, stderr=""):
        super().__init__(message if code is None else f"{message} (code {code})")
        self.message = message
        self.code = code
        self.stderr = stderr


def binary():
    """Path of the strata binary: STRATA_BIN, else strata on PATH."""
    path = os.environ.get("STRATA_BIN") or shutil.which("strata")
    if not path:
        raise StrataError("strata not found: put it on PATH or set STRATA_BIN to its path (make build writes bin/strata)")
    return path


def _run(args, timeout=None):
    """Runs strata with args (which include --json) and returns its one JSON object."""
    cmd = [binary()] + args
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except FileNotFoundError as e:
        raise StrataError(f"strata not found at {cmd[0]}: {e.strerror}") from e
    except PermissionError as e:
        raise StrataError(f"cannot run strata at {cmd[0]}: {e.strerror}") from e
    except subprocess.TimeoutExpired as e:
        raise StrataError(f"strata {args[0]} did not finish in {timeout} s") from e
    try:
        out = json.loads(proc.stdout)
    except ValueError:
        last = proc.stderr.strip().splitlines()[-1:] or [f"no JSON on stdout: {proc.stdout[:200]!r}"]
        raise StrataError(last[0], proc.returncode, proc.stderr) from None
    if proc.returncode != 0 and "error" in out:
        raise StrataError(out["error"], out.get("code", proc.returncode), proc.stderr)
    if proc.returncode != 0:
        raise StrataError(f"strata {args[0]} exited {proc.returncode}", proc.returncode, proc.stderr)
    return out


def _request(url, path, body=None, timeout=None, on_delta=None):
    """Sends a request to strata serve at url and returns the JSON object it answers with.

    With on_delta the body asks for a stream, whose lines are read as they come (_read_stream).
    """
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url.rstrip("/") + path, data=data, method="GET" if body is None else "POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            if on_delta is not None:
                return _read_stream(resp, on_delta)
            return json.load(resp)
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            err = json.loads(raw)
            raise StrataError(err["error"], err.get("code", e.code)) from None
        except (ValueError, KeyError, TypeError):
            raise StrataError(f"HTTP {e.code} from {url}: {raw[:200]!r}", e.code) from None
    except urllib.error.URLError as e:
        raise StrataError(f"cannot reach strata serve at {url}: {e.reason}") from e


def _read_stream(resp, on_delta):
    """Reads a streamed POST /query answer (NDJSON) and returns its last line, the query object.

    {"delta": text} lines go to on_delta(text), {"reset": true} to on_delta(None), and a last line
    {"error", "code"} (a query that failed after the stream began) raises StrataError.
    """
    last = None
    for raw in resp:
        if not raw.strip():
            continue
        line = json.loads(raw)
        if "delta" in line:
            on_delta(line["delta"])
        elif line.get("reset") is True:
            on_delta(None)
        elif set(line) == {"error", "code"}:
            raise StrataError(line["error"], line["code"])
        else:
            last = line
    if last is None:
        raise StrataError("strata serve ended the stream before the answer's object")
    return last


def _check_options(opts):
    unknown = sorted(set(opts) - set(QUERY_OPTIONS))
    if unknown:
        raise TypeError(f"unknown query option(s) {', '.join(unknown)} (want {', '.join(QUERY_OPTIONS)})")


def query(question, data_dir=None, mode=None, url=None, timeout=None, on_delta=None, **opts):
    """Asks strata a question and returns the ``query --json`` object as a dict.

    data_dir: the embedded store (default: STRATA_DATA_DIR, else .strata); mode: hi (default),
    naive, local, global or an hi ablation; url: a strata serve URL (data_dir is then the server's,
    and must be None); opts: top_k, entities, max_context_tokens, context_only.

    on_delta (with url only): called with each piece of the answer's text while the model writes
    it, e.g. ``on_delta=lambda s: print(s or "\n", end="", flush=True)``. The pieces make up the
    returned object's "answer". None, which is rare, withdraws the pieces before it: the model's
    answer broke off and was asked for again, and the pieces that follow start it over. timeout
    bounds each wait for the next piece, not the whole answer.
    """
    _check_options(opts)
    if on_delta is not None and url is None:
        raise TypeError("on_delta needs url: answers are streamed by strata serve")
    if url is not None:
        if data_dir is not None:
            raise TypeError("data_dir is the server's when url is given; pass one of them")
        body = {"question": question, **{k: v for k, v in opts.items() if v is not None}}
        if mode is not None:
            body["mode"] = mode
        if on_delta is not None:
            body["stream"] = True
        return _request(url, "/query", body, timeout, on_delta)
    args = ["query", "--json", "--log-level", "warn"]
    if data_dir is not None:
        args += ["--data-dir", os.fspath(data_dir)]
    if mode is not None:
        args += ["--mode", mode]
    for k, v in opts.items():
        if v is None or v is False:
            continue
        flag = "--" + k.replace("_", "-")
        args += [flag] if v is True else [flag, str(v)]
    return _run(args + ["--", question], timeout)


def status(data_dir=None, url=None, timeout=None):
    """Returns the ``status --json`` object of the store (or of the server at url)."""
    if url is not None:
        return _request(url, "/status", None, timeout)
    args = ["status", "--json", "--log-level", "warn"]
    if data_dir is not None:
        args += ["--data-dir", os.fspath(data_dir)]
    return _run(args, timeout)


def ingest(paths, data_dir=None, timeout=None):
    """Ingests files or folders and returns the ``ingest --json`` run report.

    An ingest that finished with some inputs failed (exit 3) raises StrataError with code 3.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    args = ["ingest", "--json", "--log-level", "warn"]
    if data_dir is not None:
        args += ["--data-dir", os.fspath(data_dir)]
    return _run(args + ["--"] + [os.fspath(p) for p in paths], timeout)


@contextlib.contextmanager
def serve(data_dir=None, addr="127.0.0.1:0", start_timeout=30):
    """Runs ``strata serve`` for the length of a with block and yields its URL.

        with strata.serve(data_dir=".strata") as url:
            strata.query("...", url=url)

    The server gets SIGTERM on exit and lets requests in flight finish; a non-zero exit raises
    StrataError. Its log (stderr, JSON lines) is read to learn the address.
    """
    args = [binary(), "serve", "--addr", addr, "--log-format", "json"]
    if data_dir is not None:
        args += ["--data-dir", os.fspath(data_dir)]
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines, found = [], threading.Event()
    url = []

    def read_log():
        for line in proc.stderr:
            lines.append(line)
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if rec.get("message") == "serving" and not found.is_set():
                url.append(rec["url"])
                found.set()
        found.set()  # the server exited

    reader = threading.Thread(target=read_log, daemon=True)
    reader.start()
    try:
        if not found.wait(start_timeout) or not url:
            proc.kill()
            proc.wait()
            raise StrataError(f"strata serve did not start: {''.join(lines[-3:]).strip()}", proc.returncode, "".join(lines))
        yield url[0]
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        reader.join(timeout=5)
        proc.stderr.close()
    if proc.returncode != 0:
        raise StrataError(f"strata serve exited {proc.returncode}: {''.join(lines[-3:]).strip()}", proc.returncode, "".join(lines))
