"""record.kernel_binary finds a kernel's cubin and metadata in Triton's cache as Triton names them,
including Inductor's fused names longer than Triton's 150-character file-name cut. No torch."""

import json
import os
import tempfile
import types
import unittest
from unittest import mock

import context  # noqa: F401
import record


def fake_kernel(name, cache_hash="HASH"):
    return types.SimpleNamespace(fn=types.SimpleNamespace(__name__=name),
                                 launchers=[types.SimpleNamespace(cache_hash=cache_hash)])


class KernelBinary(unittest.TestCase):
    def cache_with(self, root, stem):
        folder = os.path.join(root, "HASH")
        os.makedirs(folder)
        with open(os.path.join(folder, f"{stem}.cubin"), "wb") as f:
            f.write(b"\x7fELF")
        with open(os.path.join(folder, f"{stem}.json"), "w", encoding="utf-8") as f:
            json.dump({"name": "full"}, f)
        return folder

    def test_long_fused_name_uses_tritons_cut(self):
        name = "triton_poi_fused_" + "_".join(["index_select_mul_permute"] * 8) + "_2"
        self.assertGreater(len(name), 150)
        with tempfile.TemporaryDirectory() as root, mock.patch.dict(os.environ, {"TRITON_CACHE_DIR": root}):
            folder = self.cache_with(root, name[:150])
            path, meta = record.kernel_binary(fake_kernel(name))
            self.assertEqual(path, os.path.join(folder, name[:150] + ".cubin"))
            self.assertEqual(meta, {"name": "full"})

    def test_short_name_and_missing_file_named(self):
        with tempfile.TemporaryDirectory() as root, mock.patch.dict(os.environ, {"TRITON_CACHE_DIR": root}):
            self.cache_with(root, "triton_poi_fused_add_0")
            path, _ = record.kernel_binary(fake_kernel("triton_poi_fused_add_0"))
            self.assertTrue(path.endswith("/HASH/triton_poi_fused_add_0.cubin"))
            with self.assertRaisesRegex(record.RecordError, r"triton_poi_fused_mul_1: no .*mul_1\.cubin"):
                record.kernel_binary(fake_kernel("triton_poi_fused_mul_1"))

    def test_more_than_one_launcher_is_refused(self):
        k = fake_kernel("triton_poi_fused_add_0")
        k.launchers.append(k.launchers[0])
        with self.assertRaisesRegex(record.RecordError, "expected one launcher"):
            record.kernel_binary(k)


if __name__ == "__main__":
    unittest.main()
