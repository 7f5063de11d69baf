"""ci/stage-archive: a stage packed with only the captures it recaptured comes back whole once unpacked beside
its base (the base's other captures restored byte for byte); bad arguments and foreign archives exit 2 and
leave nothing behind. No torch, no GPU."""

import filecmp
import os
import shutil
import subprocess
import tarfile
import tempfile
import unittest

import context  # noqa: F401

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
SCRIPT = os.path.join(ROOT, "ci", "stage-archive")
BASE = os.path.join(ROOT, "tests", "fixtures", "targets", "H200")


def run(*args):
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, check=False)


def same_tree(a, b):
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.diff_files or cmp.funny_files:
        return False
    return all(same_tree(os.path.join(a, d), os.path.join(b, d)) for d in cmp.common_dirs)


class StageArchive(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.base = os.path.join(self.dir, "base")
        shutil.copytree(BASE, self.base)
        self.extra = os.path.join(self.base, "captures", "cat-kept-from-the-base")
        shutil.copytree(os.path.join(self.base, "captures", "cat-3facd8d0d5a4-6466840f7b14"), self.extra)
        self.stage = os.path.join(self.dir, "stage-x")
        shutil.copytree(self.base, self.stage)
        recaptured = os.path.join(self.stage, "captures", "cat-3facd8d0d5a4-6466840f7b14", "capture.json")
        with open(recaptured, "a", encoding="utf-8") as f:
            f.write("\n")  # another capture.json than the base's: recaptured
        open(os.path.join(self.stage, ".done-capture"), "w").close()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_pack_keeps_the_recaptured_and_unpack_restores_the_rest(self):
        archive = os.path.join(self.dir, "stage.tgz")
        r = run("pack", self.stage, self.base, archive)
        self.assertEqual(r.returncode, 0, r.stderr)
        with tarfile.open(archive) as t:
            names = t.getnames()
        self.assertIn("stage-x/captures/cat-3facd8d0d5a4-6466840f7b14/capture.json", names)
        self.assertIn("stage-x/target.json", names)
        self.assertIn("stage-x/.done-capture", names)
        self.assertFalse([n for n in names if "cat-kept-from-the-base" in n], "a capture of the base travelled")
        dest = os.path.join(self.dir, "back")
        r = run("unpack", archive, self.base, dest)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(same_tree(self.stage, dest))
        self.assertFalse(os.path.exists(dest + ".tmp"))

    def test_unpack_restores_what_the_stage_held_and_refuses_a_changed_base(self):
        archive = os.path.join(self.dir, "stage.tgz")
        self.assertEqual(run("pack", self.stage, self.base, archive).returncode, 0)
        # captured into the base after the stage: not the stage's, so not restored into it
        later = os.path.join(self.base, "captures", "cat-captured-since")
        shutil.copytree(self.extra, later)
        dest = os.path.join(self.dir, "back")
        r = run("unpack", archive, self.base, dest)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(same_tree(self.stage, dest))
        shutil.rmtree(dest)
        # a capture the stage kept from the base, recaptured in the base since: refused, nothing left
        with open(os.path.join(self.extra, "capture.json"), "a", encoding="utf-8") as f:
            f.write("\n")
        r = run("unpack", archive, self.base, dest)
        self.assertEqual(r.returncode, 2)
        self.assertIn("changed since the stage was packed", r.stderr)
        self.assertFalse(os.path.exists(dest) or os.path.exists(dest + ".tmp"))
        # one the stage held that the base no longer has
        shutil.rmtree(self.extra)
        r = run("unpack", archive, self.base, dest)
        self.assertEqual(r.returncode, 2)
        self.assertIn("has no captures/cat-kept-from-the-base", r.stderr)
        self.assertFalse(os.path.exists(dest) or os.path.exists(dest + ".tmp"))

    def test_an_archive_without_digests_gets_every_base_capture_it_lacks(self):
        archive = os.path.join(self.dir, "stage.tgz")
        self.assertEqual(run("pack", self.stage, self.base, archive).returncode, 0)
        old = os.path.join(self.dir, "old.tgz")  # packed before captures.sha256 existed
        with tarfile.open(archive) as src, tarfile.open(old, "w:gz") as dst:
            for m in src.getmembers():
                if not m.name.endswith("captures.sha256"):
                    dst.addfile(m, src.extractfile(m) if m.isfile() else None)
        os.remove(os.path.join(self.stage, "captures.sha256"))
        dest = os.path.join(self.dir, "back")
        r = run("unpack", old, self.base, dest)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("records no captures.sha256", r.stderr)
        self.assertTrue(same_tree(self.stage, dest))

    def test_a_truncated_archive_leaves_nothing(self):
        archive = os.path.join(self.dir, "stage.tgz")
        self.assertEqual(run("pack", self.stage, self.base, archive).returncode, 0)
        with open(archive, "rb") as f:
            data = f.read()
        with open(archive, "wb") as f:
            f.write(data[: len(data) // 2])
        dest = os.path.join(self.dir, "back")
        self.assertNotEqual(run("unpack", archive, self.base, dest).returncode, 0)
        self.assertFalse(os.path.exists(dest) or os.path.exists(dest + ".tmp"))

    def test_refusals_leave_nothing(self):
        self.assertEqual(run("pack", self.stage).returncode, 2)
        # an archive that cannot be written fails (it once said so and exited 0)
        r = run("pack", self.stage, self.base, os.path.join(self.dir, "no", "such", "a.tgz"))
        self.assertNotEqual(r.returncode, 0)
        self.assertNotIn("recaptured captures", r.stdout)
        self.assertEqual(run("pack", self.dir, self.base, os.path.join(self.dir, "a.tgz")).returncode, 2)
        foreign = os.path.join(self.dir, "foreign.tgz")
        with tarfile.open(foreign, "w:gz") as t:
            t.add(os.path.join(self.base, "captures"), arcname="captures")
        dest = os.path.join(self.dir, "back")
        r = run("unpack", foreign, self.base, dest)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no single stage folder with target.json", r.stderr)
        self.assertFalse(os.path.exists(dest) or os.path.exists(dest + ".tmp"))
        os.mkdir(dest)
        self.assertEqual(run("unpack", foreign, self.base, dest).returncode, 2)


if __name__ == "__main__":
    unittest.main()
