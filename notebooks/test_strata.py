"""Tests of strata.py against a real strata binary (STRATA_BIN, else strata on PATH).

Run from the repository root: STRATA_BIN=bin/strata python3 -m unittest discover -s notebooks -v
(make test-notebook does this).
"""

import http.server
import json
import os
import pathlib
import shutil
import tempfile
import threading
import unittest
from unittest import mock

import strata

CORPUS = pathlib.Path(__file__).resolve().parent.parent / "testdata" / "corpus"
QUESTION = "Who founded the Saltmere Cartographers' Guild?"


def setUpModule():
    # A missing binary is a failure, not a skip: these tests exist to run against one.
    strata.binary()


class WrapperTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.env = mock.patch.dict(os.environ, {"STRATA_OFFLINE": "1", "OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "NEO4J_URI": ""})
        cls.env.start()
        cls.tmp = tempfile.mkdtemp(prefix="strata-py-")
        cls.data_dir = os.path.join(cls.tmp, "store")
        report = strata.ingest(CORPUS, data_dir=cls.data_dir)
        assert report["documents"] == 17, report

    @classmethod
    def tearDownClass(cls):
        cls.env.stop()
        shutil.rmtree(cls.tmp)

    def test_query(self):
        res = strata.query(QUESTION, data_dir=self.data_dir, mode="naive", top_k=3)
        self.assertEqual(sorted(res), ["answer", "answer_notes", "budget", "context", "context_text", "mode", "query", "timings_ms", "usage"])
        self.assertEqual(res["mode"], "naive")
        self.assertIsNone(res["answer"])
        self.assertIsNone(res["answer_notes"])
        chunks = res["context"]["chunks"]
        self.assertEqual(len(chunks), 3)
        self.assertEqual(chunks[0]["document_id"], "harbor-guild.md")

    def test_query_options_reach_strata(self):
        res = strata.query(QUESTION, data_dir=self.data_dir, mode="local", entities=2, context_only=True)
        self.assertEqual(res["mode"], "local")
        self.assertLessEqual(len(res["context"]["entities"]), 2)
        self.assertGreater(len(res["context"]["entities"]), 0)

    def test_question_that_looks_like_a_flag(self):
        res = strata.query("--mode global", data_dir=self.data_dir)
        self.assertEqual((res["query"], res["mode"]), ("--mode global", "hi"))

    def test_status(self):
        st = strata.status(data_dir=self.data_dir)
        self.assertEqual(st["store"]["nodes"]["documents"], 17)

    def test_strata_error(self):
        with self.assertRaises(strata.StrataError) as cm:
            strata.query(QUESTION, data_dir=self.data_dir, mode="fast")
        self.assertEqual(cm.exception.code, 2)
        self.assertIn("--mode", cm.exception.message)
        self.assertIn("fast", cm.exception.message)

    def test_invalid_option_value(self):
        with self.assertRaises(strata.StrataError) as cm:
            strata.query(QUESTION, data_dir=self.data_dir, top_k=0)
        self.assertEqual(cm.exception.code, 2)
        self.assertIn("top-k must be at least 1", cm.exception.message)

    def test_bad_data_dir(self):
        missing = os.path.join(self.tmp, "no-store-here")
        with self.assertRaises(strata.StrataError) as cm:
            strata.query(QUESTION, data_dir=missing)
        self.assertEqual(cm.exception.code, 1)
        self.assertIn(missing, cm.exception.message)
        self.assertIn("run `strata ingest` first", cm.exception.message)
        self.assertIn(missing, cm.exception.stderr)

    def test_unknown_option(self):
        with self.assertRaises(TypeError):
            strata.query(QUESTION, data_dir=self.data_dir, topk=3)

    def test_strata_missing_from_path(self):
        with mock.patch.dict(os.environ, {"STRATA_BIN": "", "PATH": self.tmp}):
            with self.assertRaises(strata.StrataError) as cm:
                strata.query(QUESTION, data_dir=self.data_dir)
        self.assertIsNone(cm.exception.code)
        self.assertIn("strata not found", cm.exception.message)

    def test_strata_bin_names_nothing(self):
        missing = os.path.join(self.tmp, "bin", "strata")
        with mock.patch.dict(os.environ, {"STRATA_BIN": missing}):
            with self.assertRaises(strata.StrataError) as cm:
                strata.query(QUESTION, data_dir=self.data_dir)
        self.assertIn(missing, cm.exception.message)

    def test_serve(self):
        with strata.serve(data_dir=self.data_dir) as url:
            self.assertTrue(url.startswith("http://127.0.0.1:"), url)
            got = strata.query(QUESTION, url=url, mode="naive", top_k=3)
            want = strata.query(QUESTION, data_dir=self.data_dir, mode="naive", top_k=3)
            del got["timings_ms"], want["timings_ms"]
            self.assertEqual(got, want)
            self.assertEqual(strata.status(url=url)["store"]["nodes"]["documents"], 17)
            with self.assertRaises(strata.StrataError) as cm:
                strata.query(QUESTION, url=url, mode="fast")
            self.assertEqual(cm.exception.code, 400)
            self.assertIn("fast", cm.exception.message)
            with self.assertRaises(TypeError):
                strata.query(QUESTION, url=url, data_dir=self.data_dir)

    def test_serve_stream_offline(self):
        with strata.serve(data_dir=self.data_dir) as url:
            deltas = []
            got = strata.query(QUESTION, url=url, mode="naive", top_k=3, on_delta=deltas.append)
            want = strata.query(QUESTION, url=url, mode="naive", top_k=3)
        # No model, no answer: the stream is the object alone.
        self.assertEqual(deltas, [])
        self.assertIsNone(got["answer"])
        del got["timings_ms"], want["timings_ms"]
        self.assertEqual(got, want)
        with self.assertRaises(TypeError):
            strata.query(QUESTION, data_dir=self.data_dir, on_delta=print)

    def test_serve_stream(self):
        # A chat model that streams an answer with reasoning and a made-up citation, which the
        # streamed text must not show; embeddings stay offline, as the store was built.
        api = http.server.ThreadingHTTPServer(("127.0.0.1", 0), StreamingChat)
        threading.Thread(target=api.serve_forever, daemon=True).start()
        self.addCleanup(api.server_close)
        self.addCleanup(api.shutdown)
        env = {"STRATA_OFFLINE": "", "OPENAI_API_KEY": "not-a-secret", "STRATA_EMBEDDING_MODEL": "offline",
               "OPENAI_BASE_URL": f"http://127.0.0.1:{api.server_address[1]}/v1"}
        # A copy: the server writes its LLM cache into the data dir, which the other tests share.
        data_dir = os.path.join(self.tmp, "stream-store")
        shutil.copytree(self.data_dir, data_dir)
        with mock.patch.dict(os.environ, env), strata.serve(data_dir=data_dir) as url:
            deltas = []
            got = strata.query(QUESTION, url=url, mode="naive", top_k=3, on_delta=deltas.append)
            want = strata.query(QUESTION, url=url, mode="naive", top_k=3)
        self.assertEqual(got["answer"], "Ilsa Marrow founded the guild [doc:harbor-guild.md].")
        self.assertEqual(got["answer_notes"]["citations_removed"], 1)
        self.assertGreaterEqual(len(deltas), 2, deltas)
        self.assertNotIn(None, deltas)
        self.assertEqual("".join(deltas), got["answer"])
        del got["timings_ms"], want["timings_ms"], got["usage"], want["usage"]
        self.assertEqual(got, want)

    def test_serve_bad_data_dir(self):
        missing = os.path.join(self.tmp, "no-store-here")
        with strata.serve(data_dir=missing) as url:
            with self.assertRaises(strata.StrataError) as cm:
                strata.query(QUESTION, url=url)
        self.assertEqual(cm.exception.code, 503)
        self.assertIn("run `strata ingest` first", cm.exception.message)

    def test_serve_unreachable(self):
        with strata.serve(data_dir=self.data_dir) as url:
            pass  # stopped: nothing listens there any more
        with self.assertRaises(strata.StrataError) as cm:
            strata.query(QUESTION, url=url, timeout=5)
        self.assertIsNone(cm.exception.code)
        self.assertIn("cannot reach strata serve", cm.exception.message)

    def test_serve_that_cannot_start(self):
        with self.assertRaises(strata.StrataError) as cm:
            with strata.serve(data_dir=self.data_dir, addr="127.0.0.1:-1"):
                self.fail("the block ran without a server")
        self.assertEqual(cm.exception.code, 1)
        self.assertIn("listen", cm.exception.message)


class StreamingChat(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible chat endpoint that streams one answer in pieces, whatever is asked."""

    PIECES = ["<think>Who was it? The annals", "?</think>Ilsa Marrow", " founded the guild [doc:harbor-", "guild.md] [doc:annals].", ""]

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if not self.path.endswith("/chat/completions"):
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for i, piece in enumerate(self.PIECES):
            last = i == len(self.PIECES) - 1
            event = {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": "stop" if last else None}]}
            self.wfile.write(b"data: " + json.dumps(event).encode() + b"\n\n")
            self.wfile.flush()
        self.wfile.write(b"data: [DONE]\n\n")

    def do_GET(self):
        self.send_error(404)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    unittest.main()
