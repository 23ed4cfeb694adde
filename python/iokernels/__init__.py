"""iokernels suite tools: run suites of kernel runs, report, compare and plot
their "iokernels-result/1" JSON results (iokernels-suite --help, or
python3 -m iokernels --help)."""

# The version of iokernels this runner belongs to (CMakeLists.txt's project
# VERSION; tests/integration/test_install.py checks they agree).
__version__ = "0.1.0"
