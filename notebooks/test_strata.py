"""Tests of strata.py against a real strata binary (STRATA_BIN, else strata on PATH).

Run from the repository root: STRATA_BIN=bin/strata python3 -m unittest discover -s notebooks -v
(make test-notebook does this).
"""

import os
import pathlib
import shutil
import tempfile
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
        self.assertEqual(sorted(res), ["answer", "answer_notes", "context", "context_text", "mode", "query", "timings_ms", "usage"])
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


if __name__ == "__main__":
    unittest.main()
