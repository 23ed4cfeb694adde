"""Darshan logs as iokernels replays (docs/darshan.md).

read_log (logread) reads a log through PyDarshan; build_job (dxt, synth)
turns its records into per-rank operation series, exact where DXT traced
them and synthesized from the counters elsewhere; scale shrinks the job;
trace writes the series as an iokernels-trace (version 2) document; compare
sets the log's counters beside the same counters of the plan; diagnose
states what the counters say about the job's I/O.
"""
