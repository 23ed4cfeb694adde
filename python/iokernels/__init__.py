"""iokernels suite tools: run suites of kernel runs, report, compare and plot
their "iokernels-result/1" JSON results (python3 -m iokernels --help)."""
