#pragma once
// Buffers for one flush, re-used by the next: every (variable, record)
// request gets its slice of one allocation, back to back ("contiguous") or
// with a gap between slices ("noncontiguous", the E3SM -m option), so the
// library sees the memory layout an application would hand it.  The
// rearrange strategy keeps its exchange and aggregation buffers in them.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace iok {

// Releases an arena's allocation: munmap for a mapping, free otherwise.
struct ArenaFree {
    std::size_t mapped = 0;  // bytes of an mmap'ed allocation; 0: from aligned_alloc
    void operator()(unsigned char* p) const;
};

class BufferArena {
public:
    BufferArena(std::size_t gap_bytes) : gap_(gap_bytes) {}
    // Bytes left free after each following reserve() (a noncontiguous user
    // buffer: gaps between the variables); the slices reserved so far stay.
    void set_gap(std::size_t gap_bytes) { gap_ = gap_bytes; }
    std::size_t gap() const { return gap_; }
    // Reserve a slice aligned to `align` bytes (a power of two; 1 packs
    // slices back to back, which the runner wants: one contiguous buffer);
    // returns its index.  Call allocate() before data().
    std::size_t reserve(std::size_t bytes, std::size_t align = 8);
    // One allocation for all reserved slices (re-used when it is large
    // enough).  True when it is new: its contents are then unknown (a freed
    // buffer of the same file's write may hold exactly the values a read
    // expects), so a read must poison it before the library fills it --
    // unless zeroed().  With `fresh_zero` a large one (2 MiB and up) is a
    // new anonymous mapping, its bytes the kernel's zeros (a read needs no
    // poison); without, it may be a recycled buffer whose pages are mapped
    // already (a write fills it anyway: S3D's five checkpoints ran 1.2x
    // slower with a fresh mapping each, glibc recycled their buffers).
    bool allocate(bool fresh_zero = false);
    // The allocation is such a mapping: right after allocate() made it,
    // every byte is zero, never a recycled buffer's.
    bool zeroed() const { return base_.get_deleter().mapped != 0; }
    // Forget the slices, keep the allocation: the next flush of the same file
    // re-uses memory whose pages are already mapped (a fresh allocation per
    // flush paid page faults and kernel zeroing for every byte, every time:
    // most of bdcats' "buffer preparation", issue 19).
    void clear() {
        offsets_.clear();
        total_ = 0;
    }
    // Forget the slices and give the allocation back.
    void release() {
        clear();
        base_.reset();
        capacity_ = 0;
    }
    void* data(std::size_t slice) { return base_.get() + offsets_[slice]; }
    std::size_t total() const { return total_; }

private:
    std::size_t gap_;
    std::vector<std::size_t> offsets_;
    std::size_t total_ = 0;
    using Free = ArenaFree;
    std::unique_ptr<unsigned char, Free> base_;
    std::size_t capacity_ = 0;
};

}  // namespace iok
