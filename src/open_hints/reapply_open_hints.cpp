// libiok_open_hints.so: the MPI-IO hints a program gives MPI_File_open, put
// in effect where the MPI library dropped them (docs/compatibility.md, "MPI-IO
// hints given at open").
//
// Why: Open MPI 5.0's ROMIO component (romio341) never hands ROMIO the info
// given to MPI_File_open, so every hint given there is silently lost; ROMIO
// still reads its ROMIO_HINTS file at a process's first open, but a key the
// program's info names is lost from the file too.  MPI_File_set_info reaches
// ROMIO intact.  Measured with strace: a collective write of 2 MiB from 2
// ranks is 1 pwrite with cb_buffer_size=262144 given at open and 8 pwrites
// with the same hint given by MPI_File_set_info after it.
//
// How: this MPI_File_open (the MPI profiling interface) puts the hints the
// program asked for (its info, then the ROMIO_HINTS file for the keys the
// info lacks: the program wins, as in ROMIO) in effect two ways.  The keys
// ROMIO reads at every access (safe_after_open) it gives again with
// MPI_File_set_info after the open, where they differ from those in effect.
// The keys ROMIO takes while opening (open_time_only: collective buffer size,
// aggregators, deferred open, striping) go into a hints file of our own that
// ROMIO reads at the process's first open, and out of the info of every open
// that asks for the same value; iokernels hands them over before its first
// open (iok_open_hints_install).  What still differs is reported "not in
// effect" by the iokernels manifest.
//
// Linked into the iokernels programs ahead of the MPI library, so that the
// I/O libraries' calls (PnetCDF, HDF5, NetCDF-4) reach it too; any other MPI
// program gets it with LD_PRELOAD (bench/versus.py gives it to the seed
// tools, so both sides of a comparison run with the hints they ask for).
// IOK_OPEN_HINTS=as-mpi turns it off: the run then measures what the MPI
// library does with the hints.  Self-contained like the capture library: MPI's
// C library and nothing of the project.
#include <mpi.h>

#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
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
template <std::size_t N>
bool listed(const char* key, const char* const (&keys)[N]) {
    for (const char* k : keys)
        if (std::strcmp(key, k) == 0) return true;
    return false;
}

bool safe_after_open(const char* key) {
    static const char* const keys[] = {"romio_cb_write", "romio_cb_read",      "romio_ds_write",
                                       "romio_ds_read",  "ind_wr_buffer_size", "ind_rd_buffer_size"};
    return listed(key, keys);
}

// The keys ROMIO takes while opening.  Open MPI 5.0's romio341 drops them from
// the info like all others, but ROMIO still reads its ROMIO_HINTS file at the
// first open of a process and applies the keys of that file that the
// program's info does not name (measured: cb_buffer_size from the file is in
// effect beside an info holding romio_cb_write; named in both, both are
// lost).  So these go into a ROMIO_HINTS file of our own, merged with the
// user's, before the first open, and are taken out of the info of every open
// that asks for the same value.
bool open_time_only(const char* key) {
    static const char* const keys[] = {"cb_buffer_size",  "cb_nodes",      "cb_config_list", "romio_no_indep_rw",
                                       "striping_factor", "striping_unit", "start_iodevice"};
    return listed(key, keys);
}

// Open MPI's ROMIO component, chosen by the environment (iokernels
// --io-layer romio sets it).  Elsewhere (OMPIO, MPICH) the info is left as is.
bool romio_component() {
    const char* e = std::getenv("OMPI_MCA_io");
    return e && std::strncmp(e, "romio", 5) == 0;
}

bool g_opened = false;                           // this process has opened a file (ROMIO read its hints file)
bool g_user_file_known = false;                  // g_user_file holds ROMIO_HINTS as the program had it
std::string g_user_file;                         // "" when it had none
std::map<std::string, std::string> g_installed;  // open-time keys in the hints file ROMIO read
std::string g_file;                              // that file, until the first open has read it

const std::string& user_hints_file() {
    if (!g_user_file_known) {
        const char* e = std::getenv("ROMIO_HINTS");
        g_user_file = e ? e : "";
        g_user_file_known = true;
    }
    return g_user_file;
}

// Each "key value" line of a ROMIO hints file ('#' starts a comment).
template <class F>
void each_hint_line(const std::string& path, F&& f) {
    if (path.empty()) return;
    std::FILE* in = std::fopen(path.c_str(), "r");
    if (!in) return;
    char line[1024];
    while (std::fgets(line, sizeof line, in)) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        if (line[0] != '#' && std::sscanf(line, "%255s %1023s", key, value) == 2) f(key, value);
    }
    std::fclose(in);
}

// The open-time keys of `info`.
std::map<std::string, std::string> open_time_keys(MPI_Info info) {
    std::map<std::string, std::string> kv;
    if (info == MPI_INFO_NULL) return kv;
    int n = 0;
    PMPI_Info_get_nkeys(info, &n);
    for (int i = 0; i < n; ++i) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        PMPI_Info_get_nthkey(info, i, key);
        if (!open_time_only(key)) continue;
        PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
        if (flag) kv[key] = value;
    }
    return kv;
}

// Writes `kv` and the user's file's other lines to a file of our own and
// points ROMIO_HINTS at it, for ROMIO's first open to read.  False when
// nothing was written (the keys stay dropped).
bool install_hints_file(const std::map<std::string, std::string>& kv) {
    const char* dir = std::getenv("TMPDIR");
    std::string path = std::string(dir && *dir ? dir : "/tmp") + "/iok_romio_hints_XXXXXX";
    const int fd = mkstemp(path.data());
    if (fd < 0) return false;
    std::FILE* out = fdopen(fd, "w");
    if (!out) {
        close(fd);
        unlink(path.c_str());
        return false;
    }
    each_hint_line(user_hints_file(), [&](const char* k, const char* v) {
        if (!kv.count(k)) std::fprintf(out, "%s %s\n", k, v);
    });
    for (const auto& [k, v] : kv) std::fprintf(out, "%s %s\n", k.c_str(), v.c_str());
    std::fclose(out);
    setenv("ROMIO_HINTS", path.c_str(), 1);
    g_installed = kv;
    g_file = path;
    static const bool cleanup = std::atexit([] {  // a program that never opens a file leaves none behind
                                    if (!g_file.empty()) unlink(g_file.c_str());
                                }) == 0;
    (void)cleanup;
    return true;
}

// After ROMIO read it (or when it will not be used): the file goes,
// ROMIO_HINTS is the program's again.
void uninstall_hints_file() {
    if (g_file.empty()) return;
    unlink(g_file.c_str());
    g_file.clear();
    if (g_user_file.empty())
        unsetenv("ROMIO_HINTS");
    else
        setenv("ROMIO_HINTS", g_user_file.c_str(), 1);
}

// The open-time keys of `info` that the hints file gives with the same value.
std::map<std::string, std::string> installed_matches(MPI_Info info) {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : open_time_keys(info)) {
        const auto at = g_installed.find(k);
        if (at != g_installed.end() && at->second == v) out.emplace(k, v);
    }
    return out;
}

// The info to open with: `info` without `matches` (in the info, ROMIO would
// drop the file's value).
MPI_Info without(MPI_Info info, const std::map<std::string, std::string>& matches) {
    MPI_Info pass = MPI_INFO_NULL;
    PMPI_Info_dup(info, &pass);
    for (const auto& kv : matches) PMPI_Info_delete(pass, kv.first.c_str());
    return pass;
}

// A checksum of `matches` (to tell ranks that installed other values apart).
int signature(const std::map<std::string, std::string>& matches) {
    unsigned h = 2166136261u;  // FNV-1a
    for (const auto& [k, v] : matches)
        for (const char c : k + "=" + v) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
    return static_cast<int>(h & 0x7fffffffu);
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
    each_hint_line(user_hints_file(), [&](const char* k, const char* v) {
        if (!has_key(wanted, k)) PMPI_Info_set(wanted, k, v);
    });
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

// The open-time hints a program will open its files with, given before its
// first open (the iokernels driver does, with every rank, once its options
// are known): ROMIO then reads them from the hints file at that open, whatever
// file it is.  Returns 1 when installed, 0 when too late or not needed.
__attribute__((visibility("default"))) int iok_open_hints_install(MPI_Info hints) {
    if (g_opened || turned_off() || !romio_component() || !g_installed.empty()) return 0;
    const auto kv = open_time_keys(hints);
    if (kv.empty()) return 0;
    return install_hints_file(kv) ? 1 : 0;
}

__attribute__((visibility("default"))) int MPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info,
                                                         MPI_File* fh) {
    const bool act = info != MPI_INFO_NULL && !turned_off();
    user_hints_file();  // before anything here changes ROMIO_HINTS
    // Open-time keys: at the process's first open they go into the hints
    // file (unless the driver put them there already); at any open, those the
    // file gives leave the info.  All ranks of `comm` must agree, or hints
    // would differ between ranks (which can hang ROMIO): the same keys with
    // the same values installed everywhere.  Where not, the ranks opening for
    // the first time withdraw the file, and nobody's ROMIO has read it (the
    // driver installs on every rank alike, so its file never disagrees).
    MPI_Info pass = MPI_INFO_NULL;
    if (act && romio_component() && !open_time_keys(info).empty()) {
        const bool first = !g_opened;
        if (first && g_installed.empty()) install_hints_file(open_time_keys(info));
        const auto matches = installed_matches(info);
        const int count = static_cast<int>(matches.size()), sig = signature(matches);
        int mine[4] = {-count, count, -sig, sig}, all[4];
        PMPI_Allreduce(mine, all, 4, MPI_INT, MPI_MAX, comm);
        const bool same = all[0] == -all[1] && all[2] == -all[3];  // min == max for both
        if (same && count > 0) {
            pass = without(info, matches);
        } else if (first) {
            uninstall_hints_file();
            g_installed.clear();
        }
    }
    const int rc = PMPI_File_open(comm, filename, amode, pass != MPI_INFO_NULL ? pass : info, fh);
    g_opened = true;
    if (pass != MPI_INFO_NULL) PMPI_Info_free(&pass);
    uninstall_hints_file();
    // With MPI_INFO_NULL, ROMIO read ROMIO_HINTS itself.
    if (rc != MPI_SUCCESS || !act) return rc;
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
