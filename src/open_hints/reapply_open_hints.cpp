// libiok_open_hints.so: the MPI-IO hints a program gives MPI_File_open, put
// in effect where the MPI library dropped them (docs/compatibility.md, "MPI-IO
// hints given at open").
//
// Why: Open MPI 5.0's ROMIO component (romio341) hands ROMIO an empty info
// object at MPI_File_open, so every hint given there is silently lost, and
// with it the ROMIO_HINTS file (ROMIO reads that file only when the program
// passes MPI_INFO_NULL).  MPI_File_set_info reaches ROMIO intact.  Measured
// with strace: a collective write of 2 MiB from 2 ranks is 1 pwrite with
// cb_buffer_size=262144 given at open and 8 pwrites with the same hint given
// by MPI_File_set_info after it (a smaller value: a larger one is unsafe,
// below).
//
// How: this MPI_File_open (the MPI profiling interface) opens the file, then,
// where a hint the program asked for (its info, then the ROMIO_HINTS file for
// the keys the info lacks) differs from the hint in effect, gives them again
// with MPI_File_set_info: the keys ROMIO reads at every access (collective
// buffering and data sieving on or off, the independent buffers).  The keys
// ROMIO takes at open (collective buffer size, aggregators, deferred open,
// striping) cannot be given later, some not safely (safe_after_open): they
// stay "not in effect", which the iokernels manifest reports.
//
// Linked into the iokernels programs ahead of the MPI library, so that the
// I/O libraries' calls (PnetCDF, HDF5, NetCDF-4) reach it too; any other MPI
// program gets it with LD_PRELOAD (bench/versus.py gives it to the seed
// tools, so both sides of a comparison run with the hints they ask for).
// IOK_OPEN_HINTS=as-mpi turns it off: the run then measures what the MPI
// library does with the hints.  Self-contained like the capture library: MPI's
// C library and nothing of the project.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

// The keys ROMIO reads at every access, and so may be given after the open.
// An allowlist: ROMIO takes the others while opening, and some of those are
// unsafe to change later.  cb_buffer_size sizes the collective buffer that
// ADIO_Open allocates (fd->io_buf): raised by MPI_File_set_info, the next
// two-phase write runs past it (measured: a segfault in
// ADIOI_Fill_send_buffer at 64 MiB on the ne30 F case).  cb_nodes and
// cb_config_list choose the aggregators, romio_no_indep_rw the deferred open,
// striping the file's layout: all at open.  The independent-access buffers
// (ind_*_buffer_size) are allocated per call.
bool safe_after_open(const char* key) {
    static const char* keys[] = {"romio_cb_write", "romio_cb_read",      "romio_ds_write",
                                 "romio_ds_read",  "ind_wr_buffer_size", "ind_rd_buffer_size"};
    for (const char* k : keys)
        if (std::strcmp(key, k) == 0) return true;
    return false;
}

bool turned_off() {
    const char* e = std::getenv("IOK_OPEN_HINTS");
    return e && std::strcmp(e, "as-mpi") == 0;
}

bool has_key(MPI_Info info, const char* key) {
    int len = 0, flag = 0;
    PMPI_Info_get_valuelen(info, key, &len, &flag);
    return flag != 0;
}

// The ROMIO_HINTS file's "key value" lines ('#' starts a comment), for the
// keys `wanted` does not have: ROMIO gives the program's own hints precedence.
void add_hints_file(MPI_Info wanted) {
    const char* path = std::getenv("ROMIO_HINTS");
    if (!path || !*path) return;
    std::FILE* f = std::fopen(path, "r");
    if (!f) return;
    char line[1024];
    while (std::fgets(line, sizeof line, f)) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        if (line[0] == '#' || std::sscanf(line, "%255s %1023s", key, value) != 2) continue;
        if (!has_key(wanted, key)) PMPI_Info_set(wanted, key, value);
    }
    std::fclose(f);
}

// The hints to give again: those of `wanted` that the file has with another
// value, of the keys safe to give after the open.  Empty when all are in effect.
MPI_Info dropped_hints(MPI_File fh, MPI_Info wanted) {
    MPI_Info in_effect = MPI_INFO_NULL, out = MPI_INFO_NULL;
    if (PMPI_File_get_info(fh, &in_effect) != MPI_SUCCESS) return MPI_INFO_NULL;
    int n = 0;
    PMPI_Info_get_nkeys(wanted, &n);
    for (int i = 0; i < n; ++i) {
        char key[MPI_MAX_INFO_KEY + 1], want[MPI_MAX_INFO_VAL + 1], have[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        PMPI_Info_get_nthkey(wanted, i, key);
        if (!safe_after_open(key)) continue;
        PMPI_Info_get(wanted, key, MPI_MAX_INFO_VAL, want, &flag);
        PMPI_Info_get(in_effect, key, MPI_MAX_INFO_VAL, have, &flag);
        // A key the layer does not report (not one of its hints: PnetCDF's
        // nc_*) is not compared; giving it again would change nothing.
        if (!flag || std::strcmp(want, have) == 0) continue;
        if (out == MPI_INFO_NULL) PMPI_Info_create(&out);
        PMPI_Info_set(out, key, want);
    }
    PMPI_Info_free(&in_effect);
    return out;
}

}  // namespace

extern "C" {

// For a program to tell whether the library is in (the iokernels manifest).
__attribute__((visibility("default"))) const char* iok_open_hints_state() {
    return turned_off() ? "as-mpi" : "reapply";
}

__attribute__((visibility("default"))) int MPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info,
                                                         MPI_File* fh) {
    const int rc = PMPI_File_open(comm, filename, amode, info, fh);
    // With MPI_INFO_NULL, ROMIO read ROMIO_HINTS itself.
    if (rc != MPI_SUCCESS || info == MPI_INFO_NULL || turned_off()) return rc;
    MPI_Info wanted = MPI_INFO_NULL;
    PMPI_Info_dup(info, &wanted);
    add_hints_file(wanted);
    MPI_Info again = dropped_hints(*fh, wanted);
    PMPI_Info_free(&wanted);
    // MPI_File_set_info is collective: every rank gives it or none does.
    int mine = again != MPI_INFO_NULL ? 1 : 0, any = 0;
    PMPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any) {
        MPI_Info none = MPI_INFO_NULL;
        if (again == MPI_INFO_NULL) PMPI_Info_create(&none);
        PMPI_File_set_info(*fh, again != MPI_INFO_NULL ? again : none);
        if (none != MPI_INFO_NULL) PMPI_Info_free(&none);
    }
    if (again != MPI_INFO_NULL) PMPI_Info_free(&again);
    return rc;
}

}  // extern "C"
