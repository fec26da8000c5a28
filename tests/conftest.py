import os
import sys

# tests import the slow reference enumerator and helpers as plain modules
sys.path.insert(0, os.path.dirname(__file__))

