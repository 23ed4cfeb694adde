// blob_replay: rebuild the canonical file from a blob output (written with
// `-x blob`), with any number of processes.
//
//   mpiexec -n P blob_replay [-a pnetcdf] [-o out.nc] BLOB_DIR
//
// The writer processes recorded in BLOB_DIR/blob.json are split evenly over
// the P replay processes (P need not match the writer count).  Each replay
// process opens the subfiles of its writers on its own (MPI_COMM_SELF) with
// the library they were written with, reads each writer's blocks and
// contiguous data, and puts them into the canonical file at their canonical
// places, through the Backend interface: one collective create/define, then
// every variable of the fixed part and of each record with one flush each.
// The canonical file's dimensions, variables and attributes come from the
// index, so the decomposition map is not needed.
#include <mpi.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/strategy_blob_layout.hpp"
#include "core/collective.hpp"
#include "core/mpi_layer.hpp"
#include "core/report.hpp"
#include "driver/canonical_rebuild.hpp"

namespace {

using namespace iok;

struct Writer {
    std::size_t subfile, pos;                       // which subfile, which rank in it
    std::vector<std::vector<std::int64_t>> blocks;  // per sel of the subfile
    std::vector<std::shared_ptr<Selection>> slice;  // per canonical variable: its data in the subfile
};

struct Reader {
    std::unique_ptr<File> file;  // one subfile, opened by this rank alone
    BlobSubfileSpec layout;
    std::vector<std::shared_ptr<Selection>> keep;  // the posted gets' selections live until their flush
};

std::shared_ptr<Selection> slice(std::uint64_t length, std::int64_t start, std::int64_t count) {
    std::vector<std::uint64_t> shape{length};
    return std::make_shared<Selection>(count > 0 ? Selection::block(shape, {start}, {count}) : Selection(shape));
}

void replay(int argc, char** argv, MPI_Comm comm) {
    CanonicalRebuild rb("blob", "the blob output directory (holds blob.json and subfile_*)", comm, argc, argv);
    if (!rb.parse()) return;
    const std::string& input = rb.input();
    const BlobIndex x = read_blob_index(input, comm);

    // My share of the writer processes, in subfile order.
    std::vector<std::pair<std::size_t, std::size_t>> all;
    for (std::size_t k = 0; k < x.subfiles.size(); ++k)
        for (std::size_t i = 0; i < x.subfiles[k].ranks.size(); ++i) all.push_back({k, i});
    const auto [lo, hi] = rb.share(all.size());

    // Open the subfiles I need, on my own, and read my writers' blocks.
    // One backend of the subfiles' library holds every subfile this rank reads open at once.
    const std::unique_ptr<Backend> library = make_backend(x.library, BackendConfig{});
    std::map<std::size_t, Reader> readers;
    std::vector<Writer> writers;
    collective_step(comm, [&] {
        for (std::size_t w = lo; w < hi; ++w) {
            const std::size_t k = all[w].first;
            if (!readers.count(k)) {
                Reader r;
                r.layout = blob_subfile_spec(x.spec, x.subfiles[k], k, x.subfiles.size());
                r.file = library->open(blob_subfile_path(input, k, x.extension), r.layout.spec, MPI_COMM_SELF);
                readers.emplace(k, std::move(r));
            }
        }
        for (std::size_t w = lo; w < hi; ++w) {
            Writer wr{all[w].first, all[w].second, {}, {}};
            Reader& r = readers.at(wr.subfile);
            const BlobSubfile& sf = x.subfiles[wr.subfile];
            wr.blocks.resize(sf.sels.size());
            for (std::size_t s = 0; s < sf.sels.size(); ++s) {
                const BlobSel& b = sf.sels[s];
                const std::int64_t n = b.nblocks[wr.pos] * 2 * b.ndims;
                wr.blocks[s].resize(static_cast<std::size_t>(n));
                if (r.layout.blocks_index[s] < 0 || n == 0) continue;
                auto sl = slice(static_cast<std::uint64_t>(blob_block_offset(b, b.nblocks.size())),
                                blob_block_offset(b, wr.pos), n);
                r.file->get(r.layout.blocks_index[s], *sl, 0, wr.blocks[s].data());
                r.keep.push_back(sl);
            }
            wr.slice.resize(x.spec.vars.size());
            for (std::size_t v = 0; v < x.spec.vars.size(); ++v) {
                const BlobSel& b = sf.sels[static_cast<std::size_t>(sf.var_sel[v])];
                if (r.layout.var_index[v] < 0 || b.nelems[wr.pos] == 0) continue;
                wr.slice[v] = slice(r.layout.var_length[v], blob_elem_offset(b, wr.pos), b.nelems[wr.pos]);
            }
            writers.push_back(std::move(wr));
        }
        for (auto& kv : readers) kv.second.file->flush();
    });

    // My canonical selection per variable: my writers' blocks in order.
    // Variables sharing the writers' selections share one object.
    std::vector<std::shared_ptr<Selection>> sel(x.spec.vars.size());
    std::vector<std::uint64_t> elems(x.spec.vars.size(), 0);
    collective_step(comm, [&] {
        std::map<std::vector<int>, std::shared_ptr<Selection>> shared;
        for (std::size_t v = 0; v < x.spec.vars.size(); ++v) {
            const VarSpec& var = x.spec.vars[v];
            std::vector<int> key{static_cast<int>(x.spec.fixed_shape(var).size())};
            for (const Writer& w : writers) key.push_back(x.subfiles[w.subfile].var_sel[v]);
            for (std::uint64_t d : x.spec.fixed_shape(var)) key.push_back(static_cast<int>(d & 0x7fffffff));
            auto& s = shared[key];
            if (!s) {
                s = std::make_shared<Selection>(x.spec.fixed_shape(var));
                for (const Writer& w : writers) {
                    const BlobSubfile& sf = x.subfiles[w.subfile];
                    const auto id = static_cast<std::size_t>(sf.var_sel[v]);
                    add_blocks_from_ints(*s, w.blocks[id].data(), sf.sels[id].nblocks[w.pos]);
                }
            }
            sel[v] = s;
            for (const Writer& w : writers) {
                const BlobSubfile& sf = x.subfiles[w.subfile];
                elems[v] += static_cast<std::uint64_t>(sf.sels[static_cast<std::size_t>(sf.var_sel[v])].nelems[w.pos]);
            }
            if (elems[v] != s->elements())
                throw Error("blob metadata of variable " + var.name + ": the blocks hold " +
                                std::to_string(s->elements()) + " elements, the data " + std::to_string(elems[v]),
                            "the blob output is corrupt; write it again");
        }
    });

    // Per variable: my writers' contiguous data, read from their subfiles
    // (posted; the readers' flush completes them before the puts).
    auto fill = [&](int var, std::int64_t rec, std::vector<unsigned char>& buf) -> const Selection& {
        const auto v = static_cast<std::size_t>(var);
        const std::size_t esz = dtype_size(x.spec.vars[v].type);
        buf.resize(elems[v] * esz + 1);
        std::size_t at = 0;
        for (const Writer& w : writers) {
            if (!w.slice[v]) continue;
            Reader& r = readers.at(w.subfile);
            r.file->get(r.layout.var_index[v], *w.slice[v], rec, buf.data() + at);
            at += w.slice[v]->elements() * esz;
        }
        return *sel[v];
    };
    rb.write(
        x.spec, x.nrecords, fill,
        [&] {
            for (auto& kv : readers) kv.second.file->flush();
        },
        [&] {
            for (auto& kv : readers) kv.second.file->close();
        });
    rb.report({{"Subfile library", x.library},
               {"Writer processes", with_commas(static_cast<std::uint64_t>(x.writers))},
               {"Subfiles", with_commas(static_cast<std::uint64_t>(x.subfiles.size()))}});
}

}  // namespace

int main(int argc, char** argv) {
    iok::init_mpi(&argc, &argv);
    int rc = iok::run_kernel_main("blob_replay", MPI_COMM_WORLD, [&] { replay(argc, argv, MPI_COMM_WORLD); });
    MPI_Finalize();
    return rc;
}
