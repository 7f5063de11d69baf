"""Atomic JSON files and capture folders (atomic.py), and how worker.py, capture.py and
op_timing.py use them: a failed or killed capture leaves the earlier one whole and nothing
temporary behind. No torch: the capture itself is replaced by a stand-in."""

import contextlib
import io
import json
import os
import subprocess
import tempfile
import unittest
from unittest import mock

import context  # noqa: F401
import atomic
import capture
import golden
import worker

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "..", "..", "golden")


def tree(root):
    """{relative path: bytes} of every file under root."""
    out = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = f.read()
    return out


def make_folder(path, files):
    os.makedirs(path)
    for name, text in files.items():
        with open(os.path.join(path, name), "w", encoding="utf-8") as f:
            f.write(text)


class Tmp(unittest.TestCase):
    def setUp(self):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        self.dir = d.name


class TestWriteJson(Tmp):
    def test_replaces_whole_and_fsyncs(self):
        path = os.path.join(self.dir, "a.json")
        atomic.write_json(path, {"v": 1})
        with mock.patch.object(atomic.os, "fsync", wraps=os.fsync) as fsync:
            atomic.write_json(path, {"v": 2})
        self.assertEqual(fsync.call_count, 2)  # the file, then the folder after the rename
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.read(), '{\n "v": 2\n}\n')
        self.assertEqual(os.listdir(self.dir), ["a.json"])
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o666 & ~atomic._umask())

    def test_a_failed_write_keeps_the_old_file_and_no_temporary(self):
        path = os.path.join(self.dir, "a.json")
        atomic.write_json(path, {"v": 1})
        with self.assertRaises(TypeError):
            atomic.write_json(path, {"v": object()})  # fails half way through json.dump
        with mock.patch.object(atomic.os, "fsync", side_effect=OSError(5, "EIO")), \
                self.assertRaises(OSError):
            atomic.write_json(path, {"v": 3})
        with mock.patch.object(atomic.os, "replace", side_effect=OSError(28, "ENOSPC")), \
                self.assertRaises(OSError):
            atomic.write_json(path, {"v": 4})
        with open(path, encoding="utf-8") as f:
            self.assertEqual(json.load(f), {"v": 1})
        self.assertEqual(os.listdir(self.dir), ["a.json"])

    def test_worker_write_json_is_atomic(self):
        path = os.path.join(self.dir, "capture.json")
        with mock.patch.object(worker.atomic, "write_json") as write:
            worker.write_json(path, {"x": 1})
        write.assert_called_once_with(path, {"x": 1})


class TestStagedDir(Tmp):
    def target(self):
        return os.path.join(self.dir, "scope-a")

    def test_new_folder(self):
        with atomic.staged_dir(self.target()) as tmp:
            self.assertEqual(os.path.dirname(tmp), self.dir)  # beside it: same filesystem
            self.assertTrue(os.path.basename(tmp).startswith(".scope-a.tmp-"))  # hidden from C
            make_folder(os.path.join(tmp, "sub"), {"k.cubin": "bin"})
            atomic.write_json(os.path.join(tmp, "capture.json"), {"v": 1})
        self.assertEqual(os.listdir(self.dir), ["scope-a"])
        self.assertEqual(tree(self.target()), {"capture.json": b'{\n "v": 1\n}\n',
                                               "sub/k.cubin": b"bin"})
        self.assertEqual(os.stat(self.target()).st_mode & 0o777, 0o777 & ~atomic._umask())

    def replace(self):
        make_folder(self.target(), {"capture.json": "old", "default.old.cubin": "old"})
        synced = []
        with mock.patch.object(atomic.os, "fsync", wraps=os.fsync) as fsync:
            with atomic.staged_dir(self.target()) as tmp:
                make_folder(os.path.join(tmp, "x"), {"a": "new"})
                with open(os.path.join(tmp, "capture.json"), "w", encoding="utf-8") as f:
                    f.write("new")
                synced = fsync.call_count
                # the old capture is still in place while the new one is built
                self.assertEqual(tree(self.target())["capture.json"], b"old")
            # two files, two folders, then the parent after the rename
            self.assertGreaterEqual(fsync.call_count - synced, 5)
        self.assertEqual(tree(self.target()), {"capture.json": b"new", "x/a": b"new"})
        self.assertEqual(os.listdir(self.dir), ["scope-a"])

    def test_replaces_the_old_folder(self):
        self.replace()

    def test_replaces_without_an_exchange(self):
        with mock.patch.object(atomic, "_exchange", return_value=False):
            self.replace()

    def test_a_failure_keeps_the_old_folder_and_no_temporary(self):
        make_folder(self.target(), {"capture.json": "old"})
        with self.assertRaisesRegex(RuntimeError, "compile failed"):
            with atomic.staged_dir(self.target()) as tmp:
                with open(os.path.join(tmp, "capture.json"), "w", encoding="utf-8") as f:
                    f.write("partial")
                raise RuntimeError("compile failed")
        with self.assertRaises(KeyboardInterrupt):
            with atomic.staged_dir(self.target()):
                raise KeyboardInterrupt
        self.assertEqual(tree(self.target()), {"capture.json": b"old"})
        self.assertEqual(os.listdir(self.dir), ["scope-a"])

    def test_a_failed_swap_puts_the_old_folder_back(self):
        make_folder(self.target(), {"capture.json": "old"})
        real = os.rename

        def rename(a, b):
            if os.path.basename(a).startswith(".scope-a.tmp-"):  # the new one into place
                raise OSError(28, "ENOSPC")
            real(a, b)

        with mock.patch.object(atomic, "_exchange", return_value=False), \
                mock.patch.object(atomic.os, "rename", side_effect=rename), \
                self.assertRaises(OSError):
            with atomic.staged_dir(self.target()) as tmp:
                make_folder(os.path.join(tmp, "x"), {"a": "new"})
        self.assertEqual(tree(self.target()), {"capture.json": b"old"})
        self.assertEqual(os.listdir(self.dir), ["scope-a"])

    def test_a_failed_sync_keeps_the_old_folder(self):
        make_folder(self.target(), {"capture.json": "old"})
        with mock.patch.object(atomic.os, "fsync", side_effect=OSError(5, "EIO")), \
                self.assertRaises(OSError):
            with atomic.staged_dir(self.target()) as tmp:
                make_folder(os.path.join(tmp, "x"), {"a": "new"})
        self.assertEqual(tree(self.target()), {"capture.json": b"old"})
        self.assertEqual(os.listdir(self.dir), ["scope-a"])

    def test_cleanup_after_a_killed_writer(self):
        make_folder(self.target(), {"capture.json": "old"})
        make_folder(os.path.join(self.dir, ".scope-a.tmp-abc"), {"capture.json": "partial"})
        make_folder(os.path.join(self.dir, ".scope-ab.tmp-abc"), {"x": "another scope's"})
        make_folder(os.path.join(self.dir, "scope-b"), {"capture.json": "b"})
        atomic.cleanup(self.target())
        self.assertEqual(sorted(os.listdir(self.dir)), [".scope-ab.tmp-abc", "scope-a", "scope-b"])
        # killed between renaming the old folder aside and the new one in: the old one returns
        os.rename(self.target(), os.path.join(self.dir, ".scope-a.old-xyz"))
        make_folder(os.path.join(self.dir, ".scope-a.tmp-def"), {"capture.json": "new"})
        atomic.cleanup(self.target())
        self.assertEqual(tree(self.target()), {"capture.json": b"old"})
        # killed after the swap: the old one is only removed
        make_folder(os.path.join(self.dir, ".scope-a.old-xyz"), {"capture.json": "older"})
        atomic.cleanup(self.target())
        self.assertEqual(tree(self.target()), {"capture.json": b"old"})
        self.assertEqual(sorted(os.listdir(self.dir)), [".scope-ab.tmp-abc", "scope-a", "scope-b"])
        atomic.cleanup(os.path.join(self.dir, "missing", "x"))  # no folder: nothing to do


class TestWorkerMain(Tmp):
    def setUp(self):
        super().setUp()
        self.sid = golden.load_scopes(GOLDEN)[0]["scope_id"]
        self.target = os.path.join(self.dir, self.sid)
        make_folder(self.target, {"capture.json": "committed", "default.k.cubin": "old"})

    def main(self, stand_in):
        err = io.StringIO()
        with mock.patch.object(worker, "capture", side_effect=stand_in), \
                contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            rc = worker.main(["--golden", GOLDEN, "--out", self.dir, "--scope", self.sid,
                              "--command", "cmd", "--no-timing"])
        return rc, err.getvalue()

    def test_success_replaces_the_capture(self):
        def stand_in(entry, out_dir, command, timed, lock, lowering=None):
            self.assertNotEqual(out_dir, self.target)
            self.assertEqual(os.listdir(out_dir), [])
            with open(os.path.join(out_dir, "default.wrapper.py"), "w", encoding="utf-8") as f:
                f.write("# wrapper")
            return {"scope": entry["scope_id"], "command": command, "timed": timed}

        rc, err = self.main(stand_in)
        self.assertEqual(rc, 0, err)
        got = tree(self.target)
        self.assertEqual(sorted(got), ["capture.json", "default.wrapper.py"])
        self.assertEqual(json.loads(got["capture.json"]),
                         {"scope": self.sid, "command": "cmd", "timed": False})
        self.assertEqual(os.listdir(self.dir), [self.sid])

    def test_a_failed_recapture_keeps_the_committed_one(self):
        def failing(exc):
            def stand_in(entry, out_dir, command, timed, lock, lowering=None):
                make_folder(os.path.join(out_dir, "half"), {"default.k.cubin": "new"})
                raise exc
            return stand_in

        for exc, message in ((worker.CaptureError("default: output 0 differs"),
                              "default: output 0 differs"),
                             (RuntimeError("CUDA error: out of memory\nmore"),
                              "RuntimeError: CUDA error: out of memory")):
            with self.subTest(exc=type(exc).__name__):
                rc, err = self.main(failing(exc))
                self.assertEqual(rc, 1)
                self.assertIn(f"error: {self.sid}: {message}", err)
                self.assertEqual(tree(self.target), {"capture.json": b"committed",
                                                     "default.k.cubin": b"old"})
                self.assertEqual(os.listdir(self.dir), [self.sid])

    def test_a_failed_write_keeps_the_committed_one(self):
        rc, err = self.main(lambda *a: {"bad": object()})  # not JSON-serializable
        self.assertEqual(rc, 1)
        self.assertIn("TypeError", err)
        self.assertEqual(tree(self.target)["capture.json"], b"committed")
        self.assertEqual(os.listdir(self.dir), [self.sid])

    def test_unknown_scope_touches_nothing(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = worker.main(["--golden", GOLDEN, "--out", self.dir, "--scope", "cat-nope",
                              "--command", "cmd"])
        self.assertEqual(rc, 1)
        self.assertIn("no distinct scope cat-nope", err.getvalue())
        self.assertEqual(os.listdir(self.dir), [self.sid])


class TestCaptureOne(Tmp):
    def test_a_killed_worker_leaves_no_temporary(self):
        sid = "cumsum-000000000000-000000000000"
        target = os.path.join(self.dir, sid)
        make_folder(target, {"capture.json": "committed"})
        log_dir = os.path.join(self.dir, ".logs")
        os.makedirs(log_dir)
        args = mock.Mock(golden=GOLDEN, out=self.dir, no_timing=True, timeout=5)

        def killed(cmd, **kw):  # the worker was building its folder when the timeout hit
            make_folder(os.path.join(self.dir, f".{sid}.tmp-x1"), {"capture.json": "half"})
            raise subprocess.TimeoutExpired(cmd, 5)

        with mock.patch.object(capture.subprocess, "run", side_effect=killed):
            ok, message = capture.capture_one({"scope_id": sid}, args, "cmd",
                                              os.path.join(log_dir, "gpu.lock"), log_dir)
        self.assertFalse(ok)
        self.assertIn("timed out after 5s", message)
        self.assertEqual(tree(target), {"capture.json": b"committed"})
        self.assertEqual(sorted(os.listdir(self.dir)), [".logs", sid])


if __name__ == "__main__":
    unittest.main()
