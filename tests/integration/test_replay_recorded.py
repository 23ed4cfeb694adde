"""`iokernels replay --calls recorded`: the application's own MPI-IO calls
re-issued one by one.  Each test captures a real program, replays its trace
call by call on MPI-IO under the capture library again, and compares the two
traces: per rank the same sessions, the same set_view count, the same
accesses (flavour flags, shapes, displacements, offsets, bytes, series
counts and steps, set_view positions).  The replayed files have the
captured size and verify; a corrupted file and a read of bytes not yet
written fail verification; a trace the mode cannot replay is refused with
one message on every rank."""
import json
import subprocess
from pathlib import Path

import pytest

from conftest import BUILD_DIR, SOURCE_DIR, assert_all_ranks_fail, iok, load_json, mpirun, tool
from test_capture_replay import captured, captured_s3d, file_bytes, flavours_binary, replay, replayed, shape_runs

RECORDED = ["--calls", "recorded"]
SHIM_C = SOURCE_DIR / "tests" / "integration" / "capture" / "corrupt_on_close.c"


@pytest.fixture(scope="module")
def flavours(tmp_path_factory):
    return flavours_binary(tmp_path_factory)


def as_replayed(flags):
    """The flavour --calls recorded issues: shared and ordered pointers become
    explicit offsets (docs/capture_trace.md); everything else as captured."""
    return (flags & ~(8 | 16)) | 4 if flags & 8 else flags


def sessions_on(trace, name, replaying=False):
    """Per rank, the sessions on file `name`: (comm size, set_view count,
    accesses); an access is (flags, shape as (size, extent, runs), disp,
    voff, bytes, count, dstep, vstep, views, view_step)."""
    out = []
    for rk in trace["ranks"]:
        shapes = rk["shapes"]
        seq = []
        for s in rk["sessions"]:
            if s["file"] != name:
                continue
            ops = []
            for op in s["ops"]:
                sh = shapes[op[1]]
                ops.append((op[0] if replaying else as_replayed(op[0]),
                            (sh["size"], sh["extent"], tuple(shape_runs(sh))), *op[2:8], op[11], op[12]))
            seq.append((s["comm_size"], s["set_views"], ops))
        out.append(seq)
    return out


def check_recorded(trace, names, tmp_path, nranks, tag, *args):
    """Replays `trace` with --calls recorded under capture and checks, per
    captured file: the same per-rank session sequence, the captured size,
    the same bytes written, verification passed.  Returns the result JSON."""
    out = tmp_path / f"rec_{tag}"
    js = tmp_path / f"rec_{tag}.json"
    p, rt = replay(nranks, trace, out, *RECORDED, "--json", js, *args, capture_to=tmp_path / f"rec_{tag}.trace")
    assert "Verification" in p.stdout and "passed" in p.stdout, p.stdout
    assert "recorded: the application's MPI-IO calls" in p.stdout
    res = load_json(js)
    assert res["summary"]["verification_mismatches"] == 0 and res["params"]["calls"] == "recorded"
    t = load_json(trace)
    written, rewritten = file_bytes(t), file_bytes(rt)
    for name in names:
        path = replayed(out, name)
        orig = sessions_on(t, name)
        again = sessions_on(rt, str(path), replaying=True)
        for r in range(nranks):
            # the recorded sessions come first; the read-back's follow
            assert len(again[r]) > len(orig[r]), (name, r)
            assert again[r][:len(orig[r])] == orig[r], f"{name}: rank {r}'s calls differ"
        assert sum(len(op[2]) for rk in orig for op in rk) > 0
        assert path.stat().st_size == Path(name).stat().st_size, name
        assert rewritten[str(path)] == written[name], f"{name}: offsets written differ"
        recs = {f["role"]: f for f in res["files"] if f["captured_file"] == name}
        assert recs["write"]["backend"] == "mpiio (recorded calls)" and recs["write"]["calls"] == "recorded"
        assert recs["write"]["bytes"]["total"] == sum(
            op[4] * op[5] for rk in t["ranks"] for s in rk["sessions"] if s["file"] == name for op in s["ops"]
            if op[0] & 1)
        assert recs["write"]["requests"]["total"] == sum(
            op[5] for rk in t["ranks"] for s in rk["sessions"] if s["file"] == name for op in s["ops"] if op[0] & 1)
        assert recs["verify"]["verify"]["mismatches"] == 0
    return res, rt


def test_flavours_call_by_call(flavours, tmp_path):
    out = tmp_path / "flav.dat"
    trace = tmp_path / "t.json"
    captured(trace, 4, [flavours, out])
    t = load_json(trace)
    # where the views were set: the vector view before write_all, the
    # default view again before write_at (format 2: ops[11], ops[12])
    ops = t["ranks"][1]["sessions"][0]["ops"]
    assert [o[11] for o in ops] == [1, 1, 0, 0, 0, 0] and t["ranks"][1]["sessions"][0]["set_views"] == 2
    res, rt = check_recorded(trace, [str(out), f"{out}.sub"], tmp_path, 4, "flav")
    # every flavour re-issued: nonblocking, split, noncontiguous memory
    flags = [o[0] for o in rt["ranks"][2]["sessions"][0]["ops"]]
    assert flags[:6] == [1 | 2, 1 | 4, 1 | 2 | 4 | 32, 1 | 2 | 4 | 64, 1 | 2 | 4, 2 | 4]
    sub = str(replayed(tmp_path / "rec_flav", f"{out}.sub"))
    assert [s["ops"][0][0] for s in rt["ranks"][0]["sessions"] if s["file"] == sub][0] == 1 | 2 | 128
    # the recorded read of the whole file was checked and read what was written
    reads = [f for f in res["files"] if f["role"] == "read" and f["captured_file"] == str(out)]
    assert reads and reads[0]["verify"]["mismatches"] == 0 and reads[0]["bytes"]["total"] == 4 * 8 * 4 * 64


@pytest.mark.parametrize("nranks", [1, 4, 16])
def test_raw_write_call_by_call(tmp_path, nranks):
    out = tmp_path / "raw.dat"
    trace = tmp_path / "t.json"
    captured(trace, nranks, [tool("raw_write"), "-n", 1 << 20, "-c", 64 << 10, "-o", out, "-k"])
    check_recorded(trace, [str(out)], tmp_path, nranks, "raw")


def test_noncontig_call_by_call(tmp_path):
    from gen_inputs import mpi_io_test_decomposition
    dec = tmp_path / "d.nc"
    mpi_io_test_decomposition(dec, nprocs=4, array_size=2000, lengths=(1, 6), seed=5)
    out = tmp_path / "nc.dat"
    trace = tmp_path / "t.json"
    captured(trace, 4, [BUILD_DIR / "src" / "iokernels", "noncontig", "-n", 3, "-k", "-o", out, dec])
    check_recorded(trace, [str(out)], tmp_path, 4, "nc", "--file", str(out))


def test_e3sm_f_case_call_by_call(tmp_path):
    mp = tmp_path / "map_f.nc"
    subprocess.run([str(tool("e3sm_mapgen")), "--case", "F", "--ne", "2", "--nprocs", "4", "-o", str(mp)],
                   check=True, capture_output=True)
    d = tmp_path / "cap"
    d.mkdir()
    trace = tmp_path / "t.json"
    captured(trace, 4, [BUILD_DIR / "src" / "iokernels", "e3sm", "-a", "pnetcdf", "-r", 2, "-k", "-o", d / "f.nc", mp])
    t = load_json(trace)
    outs = sorted(f for f in file_bytes(t) if Path(f).parent == d)
    assert len(outs) == 2, outs
    # PnetCDF sets a view per collective access: the series record it
    assert sum(s["set_views"] for rk in t["ranks"] for s in rk["sessions"] if s["file"] in outs) > 8
    sel = [a for f in outs for a in ("--file", f)]
    check_recorded(trace, outs, tmp_path, 4, "e3sm", *sel)
    # format 2 folds the per-level repeats of the decomposition's runs
    groups = [sh["runs"] for rk in t["ranks"] for sh in rk["shapes"]]
    assert any(g[i + 3] == 0 for g in groups for i in range(0, len(g), 4))
    # the same trace written as version 1 (runs unfolded, no set_view
    # positions) replays (--calls plan) into the same files, byte for byte,
    # as version 2 with either kind of calls
    v1 = json.loads(json.dumps(t))
    v1["version"] = 1
    for rk in v1["ranks"]:
        for sh in rk["shapes"]:
            sh["runs"] = [x for off, ln in shape_runs(sh) for x in (off, ln, 0, 1)]
        for ses in rk["sessions"]:
            ses["ops"] = [op[:11] for op in ses["ops"]]
    (tmp_path / "v1.json").write_text(json.dumps(v1))
    assert (tmp_path / "v1.json").stat().st_size > trace.stat().st_size
    for tag, tr in (("p1", tmp_path / "v1.json"), ("p2", trace)):
        (tmp_path / tag).mkdir()
        iok(4, "replay", "-k", "-o", tmp_path / tag, *sel, tr)
    for f in outs:
        a, b, c = (replayed(tmp_path / d, f).read_bytes() for d in ("p1", "p2", "rec_e3sm"))
        assert len(a) == Path(f).stat().st_size and a == b == c, f


def test_s3d_call_by_call(tmp_path):
    trace, outs = captured_s3d(tmp_path)
    check_recorded(trace, outs, tmp_path, 4, "s3d")


def test_corrupted_replay_fails_verification(tmp_path):
    """A shim flips one byte of the replayed file when the recorded session
    closes, before the read-back: the run must fail, naming the byte."""
    shim = tmp_path / "libcorrupt.so"
    subprocess.run(["mpicc", "-shared", "-fPIC", "-O2", "-o", str(shim), str(SHIM_C)], check=True)
    out = tmp_path / "raw.dat"
    trace = tmp_path / "t.json"
    captured(trace, 4, [tool("raw_write"), "-n", 1 << 20, "-c", 64 << 10, "-o", out, "-k"])
    argv = ["-x", f"LD_PRELOAD={shim}", "-x", "IOK_CORRUPT_MATCH=replay0_raw", "-x", "IOK_CORRUPT_AT=5000",
            BUILD_DIR / "src" / "iokernels", "replay", "-o", tmp_path, *RECORDED, trace]
    p = mpirun(4, argv, check=False)
    assert "corrupt_on_close: flipped byte 5000" in p.stderr
    assert_all_ranks_fail(p, "element 5000")
    # the same run without the shim's variables passes (the shim alone changes nothing)
    (tmp_path / "ok").mkdir()
    p = mpirun(4, ["-x", f"LD_PRELOAD={shim}", BUILD_DIR / "src" / "iokernels", "replay", "-o", tmp_path / "ok",
                   *RECORDED, trace])
    assert "passed" in p.stdout


def flavours_trace_to_edit(tmp_path, flavours):
    """The flavours program captured on 4 ranks: (its output file, its trace as JSON, to be edited)."""
    out = tmp_path / "flav.dat"
    trace = tmp_path / "t.json"
    captured(trace, 4, [flavours, out])
    return out, load_json(trace)


def test_read_of_bytes_not_yet_written_fails(tmp_path, flavours):
    """A trace edited so that rank 0 reads the file before writing it while the
    captured times say the write came first: the recorded read must find
    bytes that do not hold the pattern."""
    out, t = flavours_trace_to_edit(tmp_path, flavours)
    for rk in t["ranks"]:
        s = rk["sessions"][0]
        rd = s["ops"][-1]
        assert not rd[0] & 1
        # the read first (its time unchanged: after every write; no view set
        # before it, so the default view), then the writes
        s["ops"] = [rd] + s["ops"][:-1]
    bad = tmp_path / "swapped.json"
    bad.write_text(json.dumps(t))
    p = iok(4, "replay", "-o", tmp_path, *RECORDED, "--file", str(out), bad, check=False)
    assert_all_ranks_fail(p, "recorded read")


def test_refusals(tmp_path, flavours):
    out = tmp_path / "raw.dat"
    trace = tmp_path / "t.json"
    captured(trace, 4, [tool("raw_write"), "-n", 1 << 16, "-c", 4096, "-o", out, "-k"])
    cases = [
        (2, [], trace, "was captured on 4 rank(s), this run has 2"),
        (4, ["-a", "hdf5"], trace, "it runs with -a mpiio -x canonical"),
        (4, ["-x", "rearrange"], trace, "it runs with -a mpiio -x canonical"),
        (4, ["--independent"], trace, "--independent changes the calls"),
    ]
    # the same trace as format version 1 (no set_view positions)
    t = load_json(trace)
    t["version"] = 1
    for rk in t["ranks"]:
        for s in rk["sessions"]:
            s["ops"] = [op[:11] for op in s["ops"]]
    v1 = tmp_path / "v1.json"
    v1.write_text(json.dumps(t))
    cases.append((4, [], v1, "does not record where the application called MPI_File_set_view: re-capture it"))
    # a file opened on a communicator of 2 of the 4 ranks
    t = load_json(trace)
    t["ranks"][0]["sessions"][0]["comm_size"] = 2
    sub = tmp_path / "sub.json"
    sub.write_text(json.dumps(t))
    cases.append((4, [], sub, "communicator of 2 of the 4 ranks"))
    for n, args, tr, msg in cases:
        p = iok(n, "replay", "-o", tmp_path, *RECORDED, *args, tr, check=False)
        assert_all_ranks_fail(p, msg)
    assert not list(tmp_path.glob("replay*"))
    # version 1 still replays with the plan's calls, and --help names --calls and its default
    (tmp_path / "plan").mkdir()
    p = iok(4, "replay", "-o", tmp_path / "plan", v1)
    assert "passed" in p.stdout
    h = iok(1, "replay", "--help").stdout
    assert "--calls" in h and "recorded" in h and "plan" in h


def test_file_only_read_is_prepared_then_read_call_by_call(tmp_path, flavours):
    """A file the application opened read-only: its bytes are written first
    (role prepare), then the recorded collective read reads and checks them."""
    out, t = flavours_trace_to_edit(tmp_path, flavours)
    for rk in t["ranks"]:
        s = rk["sessions"][0]
        rd = s["ops"][-1]
        rd[11] = rd[12] = 0
        s.update(amode=2, set_views=0, ops=[rd])  # MPI_MODE_RDONLY
        rk["sessions"] = [s]
    ro = tmp_path / "ro.json"
    ro.write_text(json.dumps(t))
    js = tmp_path / "r.json"
    p = iok(4, "replay", "-o", tmp_path, *RECORDED, "--json", js, ro)
    assert "passed" in p.stdout
    roles = {f["role"]: f for f in load_json(js)["files"]}
    assert set(roles) == {"prepare", "read", "verify"}
    assert roles["read"]["bytes"]["total"] == 4 * 8 * 4 * 64 and roles["read"]["verify"]["mismatches"] == 0
    assert roles["prepare"]["bytes"]["total"] == 8 * 4 * 64  # every byte read, written once
