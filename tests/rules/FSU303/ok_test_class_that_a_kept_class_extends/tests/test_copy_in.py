import unittest

from torch_npu.distributed.fsdp._add_fsdp_patch import _patched_all_gather_copy_in


class TestCopyIn(unittest.TestCase):
    def test_patched_copy_in_exists(self):
        self.assertIsNotNone(_patched_all_gather_copy_in)


class TestMoreCopyIn(TestCopyIn):
    def test_unrelated(self):
        self.assertEqual(1 + 1, 2)


if __name__ == "__main__":
    unittest.main()
