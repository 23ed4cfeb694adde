#include "backends/mpiio_datatypes.hpp"

#include <algorithm>
#include <climits>
#include <numeric>
#include <vector>

#include "core/error.hpp"

namespace iok {

namespace {

// Largest block handed to MPI in one piece: well inside int, whatever the unit.
constexpr std::int64_t kMaxPieceUnits = std::int64_t{1} << 30;

struct Piece {
    MPI_Aint disp;       // bytes
    std::int64_t units;  // length in units
};

// Appends [disp, disp+units) to `out`, merging with the previous piece when
// adjacent and splitting so that every length fits an int.
void append_piece(std::vector<Piece>& out, MPI_Aint disp, std::int64_t units, std::size_t unit_size) {
    if (!out.empty()) {
        Piece& last = out.back();
        if (last.disp + static_cast<MPI_Aint>(last.units * static_cast<std::int64_t>(unit_size)) == disp &&
            last.units + units <= kMaxPieceUnits) {
            last.units += units;
            return;
        }
    }
    while (units > 0) {
        std::int64_t n = std::min(units, kMaxPieceUnits);
        out.push_back({disp, n});
        disp += static_cast<MPI_Aint>(n * static_cast<std::int64_t>(unit_size));
        units -= n;
    }
}

MPI_Datatype make_hindexed(const std::vector<Piece>& pieces, MPI_Datatype unit) {
    if (pieces.size() > static_cast<std::size_t>(INT_MAX))
        throw Error(
            "a selection of " + std::to_string(pieces.size()) + " blocks is more than one MPI datatype can describe",
            "use fewer processes per request or a coarser decomposition");
    std::vector<int> lens(pieces.size());
    std::vector<MPI_Aint> disps(pieces.size());
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        lens[i] = static_cast<int>(pieces[i].units);
        disps[i] = pieces[i].disp;
    }
    MPI_Datatype t;
    check_mpi(MPI_Type_create_hindexed(static_cast<int>(pieces.size()), lens.data(), disps.data(), unit, &t),
              "MPI_Type_create_hindexed", "describe a selection as an MPI datatype");
    check_mpi(MPI_Type_commit(&t), "MPI_Type_commit", "describe a selection as an MPI datatype");
    return t;
}

}  // namespace

SelectionTypes::~SelectionTypes() { release(); }

void SelectionTypes::release() {
    if (file_ != MPI_DATATYPE_NULL) MPI_Type_free(&file_);
    if (mem_derived_ && mem_ != MPI_DATATYPE_NULL) MPI_Type_free(&mem_);
    file_ = mem_ = MPI_DATATYPE_NULL;
    mem_derived_ = false;
}

SelectionTypes& SelectionTypes::operator=(SelectionTypes&& o) noexcept {
    if (this != &o) {
        release();
        file_ = o.file_;
        mem_ = o.mem_;
        mem_derived_ = o.mem_derived_;
        mem_count_ = o.mem_count_;
        bytes_ = o.bytes_;
        file_end_ = o.file_end_;
        file_blocks_ = o.file_blocks_;
        permuted_ = o.permuted_;
        o.file_ = o.mem_ = MPI_DATATYPE_NULL;
        o.mem_derived_ = false;
    }
    return *this;
}

SelectionTypes SelectionTypes::build(const Selection& sel, std::size_t elem_size, MPI_Datatype unit,
                                     std::size_t unit_size) {
    if (unit_size == 0 || elem_size % unit_size != 0)
        throw Error("element size " + std::to_string(elem_size) + " is not a multiple of unit size " +
                    std::to_string(unit_size));
    const std::int64_t units_per_elem = static_cast<std::int64_t>(elem_size / unit_size);
    SelectionTypes t;
    t.mem_ = unit;
    std::vector<Run> runs = sel.runs();
    if (runs.empty()) return t;

    // Buffer position (in elements) of every run, in buffer order.
    std::vector<std::int64_t> bufpos(runs.size());
    std::int64_t pos = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        bufpos[i] = pos;
        pos += runs[i].length;
    }
    std::vector<std::size_t> order(runs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    auto by_offset = [&](std::size_t a, std::size_t b) { return runs[a].offset < runs[b].offset; };
    if (!std::is_sorted(order.begin(), order.end(), by_offset)) {
        std::stable_sort(order.begin(), order.end(), by_offset);
        t.permuted_ = true;
    }

    std::vector<Piece> file, mem;
    file.reserve(runs.size());
    if (t.permuted_) mem.reserve(runs.size());
    std::int64_t prev_end = -1;
    for (std::size_t k = 0; k < order.size(); ++k) {
        const Run& r = runs[order[k]];
        if (r.offset < prev_end)
            throw Error("selection has overlapping runs (element " + std::to_string(r.offset) + " is accessed twice)",
                        "each element may appear once in a rank's selection");
        prev_end = r.offset + r.length;
        const std::int64_t units = r.length * units_per_elem;
        append_piece(file, static_cast<MPI_Aint>(r.offset) * static_cast<MPI_Aint>(elem_size), units, unit_size);
        if (t.permuted_)
            append_piece(mem, static_cast<MPI_Aint>(bufpos[order[k]]) * static_cast<MPI_Aint>(elem_size), units,
                         unit_size);
    }
    t.bytes_ = static_cast<std::uint64_t>(pos) * elem_size;
    t.file_end_ = static_cast<std::uint64_t>(prev_end) * elem_size;
    t.file_blocks_ = file.size();
    t.file_ = make_hindexed(file, unit);

    const std::int64_t total_units = pos * units_per_elem;
    if (!t.permuted_ && total_units <= INT_MAX) {
        t.mem_count_ = static_cast<int>(total_units);  // contiguous: (units, unit)
        return t;
    }
    if (!t.permuted_) append_piece(mem, 0, total_units, unit_size);  // contiguous but > INT_MAX units
    t.mem_ = make_hindexed(mem, unit);
    t.mem_derived_ = true;
    t.mem_count_ = 1;
    return t;
}

}  // namespace iok
