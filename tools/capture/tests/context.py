"""Puts tools/capture on sys.path so the tests import its modules as capture.py does."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
