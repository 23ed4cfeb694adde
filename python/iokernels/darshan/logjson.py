"""A log's records (logread's form) as JSON and back: what
`iokernels-darshan records LOG` prints and `iokernels-darshan write` takes.

    {"nprocs": 16, "exe": "...", "jobid": 1, "run_time": 2.0, "hints": "cb_nodes=4",
     "partial": ["DXT_MPIIO"],
     "records": [{"module": "MPI-IO", "name": "/p/f", "rank": -1, "c": {...}, "f": {...}}],
     "dxt": [{"module": "DXT_MPIIO", "name": "/p/f", "rank": 0, "write_count": 2, "read_count": 0,
              "writes": [[offset, length, start, end], ...], "reads": [...]}]}

`partial` names the modules whose buffer overflowed (Darshan's partial
flag: a partial DXT record lists fewer accesses than the counters count).
"""
from __future__ import annotations

from typing import Any

from .errors import LogError
from .logread import Dxt, Log, Record

SEGMENT = ("offset", "length", "start_time", "end_time")


def as_json(log: Log) -> dict[str, Any]:
    return {"nprocs": log.nprocs, "exe": log.exe, "jobid": log.jobid, "run_time": log.run_time, "hints": log.hints,
            "partial": sorted(m for m, p in log.modules.items() if p),
            "records": [{"module": r.module, "name": r.name, "rank": r.rank,
                         "c": {k: v for k, v in r.c.items() if v}, "f": {k: v for k, v in r.f.items() if v}}
                        for r in log.records],
            "dxt": [{"module": d.module, "name": d.name, "rank": d.rank, "write_count": d.write_count,
                     "read_count": d.read_count, "writes": [[s[k] for k in SEGMENT] for s in d.writes],
                     "reads": [[s[k] for k in SEGMENT] for s in d.reads]} for d in log.dxt]}


def from_json(doc: dict[str, Any], path: str = "-") -> Log:
    try:
        recs = [Record(r["module"], r["name"], int(r["rank"]), dict(r.get("c", {})), dict(r.get("f", {})))
                for r in doc["records"]]
        dxt = [Dxt(d["module"], d["name"], int(d["rank"]),
                   [dict(zip(SEGMENT, s, strict=True)) for s in d.get("writes", [])],
                   [dict(zip(SEGMENT, s, strict=True)) for s in d.get("reads", [])],
                   int(d.get("write_count", len(d.get("writes", [])))),
                   int(d.get("read_count", len(d.get("reads", []))))) for d in doc.get("dxt", [])]
        modules = {m: m in doc.get("partial", []) for m in {*(r.module for r in recs), *(d.module for d in dxt)}}
        return Log(path, "3.41", int(doc["nprocs"]), str(doc.get("exe", "")), int(doc.get("jobid", 0)),
                   float(doc.get("run_time", 0.0)), "-", modules, recs, dxt, hints=str(doc.get("hints", "")))
    except (KeyError, TypeError, ValueError) as e:
        raise LogError(f"{path}: not a log description ({type(e).__name__}: {e}); "
                       "`iokernels-darshan records LOG` prints one") from None
