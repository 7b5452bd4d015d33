import os
import sys

# The suite writes its bytecode even where the environment says not to
# (PYTHONDONTWRITEBYTECODE=1): pytest rewrites the asserts of every test module, and of
# its plugins' whole packages (hypothesis, anyio), at each import, and without the cached
# result each run paid ~6 s of it again in every xdist worker, as every tally the tests
# start in another process compiled tally again. This package is imported before conftest
# and the test modules; the workers and those processes inherit the variable's absence.
# __pycache__/ is ignored by git.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
